import {
  SpineError,
  type ToolCallPart,
  type ToolResultBody,
  type ToolRunOptions,
} from '@spine/protocol';
import { Failed, type LoopContext } from './loop-context.js';
import { fitToolResult } from './result-fit.js';

/**
 * Runs one assistant message's tool calls through the scheduler, appending `tool/approval`,
 * `tool/started` and `tool/result` as it reports them; every call ends up with a result.
 */
export async function runTools(
  context: LoopContext,
  calls: readonly ToolCallPart[],
  at: { turn: number; step: number },
  deniedTools: string[],
  signal?: AbortSignal,
): Promise<void> {
  const { session } = context;
  const answered = new Set<string>();
  const fit = {
    contextWindow: context.contextWindow,
    at,
    ...(context.maxOutputTokens === undefined ? {} : { maxOutputTokens: context.maxOutputTokens }),
    ...(context.meter ? { meter: context.meter } : {}),
  };
  const commit = (result: ToolResultBody): void => {
    if (answered.has(result.toolCallId)) return;
    answered.add(result.toolCallId);
    // A result that could never fit the window is cut (the whole output stays in the log).
    const body = fitToolResult(session, result, fit);
    session.append('tool/result', body, { ...at, surfaceOp: { op: 'append' } });
    if (body.outcome === 'denied') deniedTools.push(body.toolName);
    context.emit('tool-result', { ...at, result: body });
  };
  const started = new Set<string>();
  if (!signal?.aborted) {
    const options: ToolRunOptions = {
      onEvent: (event) => {
        switch (event.type) {
          case 'approval':
            session.append('tool/approval', event.body, at);
            break;
          case 'started':
            started.add(event.toolCallId);
            session.append(
              'tool/started',
              {
                toolCallId: event.toolCallId,
                toolName: event.toolName,
                arguments: event.arguments,
              },
              at,
            );
            break;
          case 'progress':
            context.emit('tool-progress', {
              ...at,
              toolCallId: event.toolCallId,
              ...(event.message !== undefined ? { message: event.message } : {}),
              ...(event.data !== undefined ? { data: event.data } : {}),
            });
            break;
          case 'result':
            commit(event.body);
            break;
        }
      },
    };
    if (signal) options.signal = signal;
    if (context.approve) options.approve = context.approve;
    if (context.agentName) options.agent = context.agentName;
    try {
      const results = await context.tools.run(calls, options);
      for (const result of results) commit(result);
    } catch (error) {
      closeCalls(calls, answered, started, commit, 'the tool runtime failed');
      throw new Failed(
        SpineError.isInstance(error)
          ? error
          : new SpineError({
              code: 'INTERNAL',
              message: `the tool scheduler failed: ${String(error)}; report this bug`,
              cause: error,
            }),
      );
    }
  }
  closeCalls(calls, answered, started, commit, 'the turn was aborted');
}

/** Gives every call without a result one, so no provider rejects the next request. */
function closeCalls(
  calls: readonly ToolCallPart[],
  answered: Set<string>,
  started: Set<string>,
  commit: (body: ToolResultBody) => void,
  why: string,
): void {
  for (const call of calls) {
    if (answered.has(call.id)) continue;
    const unknown = started.has(call.id);
    commit({
      toolCallId: call.id,
      toolName: call.name,
      content: unknown
        ? `Outcome unknown: ${why} while this tool was running; it may have had effects. Verify the state before retrying.`
        : `Not started: ${why} before this tool ran. Run it again if it is still needed.`,
      isError: true,
      outcome: unknown ? 'unknown' : 'not-started',
    });
  }
}
