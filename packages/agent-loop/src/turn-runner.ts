import {
  type AssistantMessageBody,
  addUsage,
  SpineError,
  type ToolCallPart,
  textOf,
  type Usage,
} from '@spine/protocol';
import { TurnAbortedError } from './errors.js';
import { Aborted, compact, Failed, type LoopContext, type LoopStart } from './loop-context.js';
import type { AbortedBody, AttemptBody, TurnEndBody } from './records.js';
import { attempts } from './step-request.js';
import { runTools } from './step-tools.js';
import { assignToolCallIds } from './tool-call-ids.js';
import type { TurnResult } from './types.js';

const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

/**
 * Runs the steps of one turn: pre-step (prompt, runtime context, compaction pressure),
 * request (recorded), stream, assistant message, tools, until the model stops calling tools,
 * the step limit, an abort or an unrecoverable error. Always ends with `turn/end`.
 */
export async function runTurnLoop(
  context: LoopContext,
  start: LoopStart,
  signal?: AbortSignal,
): Promise<TurnResult> {
  const { session } = context;
  const { turn } = start;
  let step = start.step;
  let attempt = start.attempt;
  let stepStarted = start.stepStarted;
  let steps = 0;
  let usage = EMPTY_USAGE;
  let text = '';
  const deniedTools: string[] = [];
  try {
    for (;;) {
      if (signal?.aborted) throw new Aborted('pre-step');
      const at = { turn, step };
      if (!stepStarted) session.append('step/start', {}, at);
      stepStarted = false;
      if (context.listens('step-start')) context.emit('step-start', { turn, step, attempt });
      consumeNextStep(context, at);
      const snapshot = context.prompt.assemble({ tools: context.tools.specs(context.agentName) });
      if (context.compaction) await compact(context, snapshot, 'pressure', at, signal);

      const streamed = await attempts(context, snapshot, { turn, step, attempt }, signal);
      attempt = 1;
      const body: AssistantMessageBody = {
        // Ids unique in the session before they reach the surface (the provider's are kept).
        content: assignToolCallIds(session, streamed.message.content, at),
        finishReason: streamed.finishReason,
        model: context.modelId,
        provider: context.model.provider,
        attempt: streamed.attempt,
      };
      if (streamed.rawFinishReason !== undefined) body.rawFinishReason = streamed.rawFinishReason;
      if (streamed.usage) body.usage = streamed.usage;
      const messageEvent = session.append('assistant/message', body, {
        ...at,
        surfaceOp: { op: 'append' },
      });
      const outcome: AttemptBody = {
        request: streamed.headerSeq,
        attempt: streamed.attempt,
        outcome: 'ok',
        messageSeq: messageEvent.seq,
      };
      if (streamed.prefixCauses.length > 0) outcome.prefixCauses = streamed.prefixCauses;
      if (streamed.usage) {
        outcome.usage = streamed.usage;
        outcome.cacheHitTokens = streamed.usage.cacheReadTokens;
        outcome.cacheMissTokens = streamed.usage.inputTokens + streamed.usage.cacheWriteTokens;
        usage = addUsage(usage, streamed.usage);
        context.addUsage(streamed.usage);
      }
      session.append('assistant/attempt', outcome, at);
      const stepText = textOf(streamed.message);
      if (stepText) text = stepText;

      const calls = callsOf(body.content);
      for (const call of calls) context.emit('tool-call', { turn, step, call });
      if (calls.length > 0) await runTools(context, calls, at, deniedTools, signal);
      session.append(
        'step/end',
        { finishReason: streamed.finishReason, toolCalls: calls.length },
        at,
      );
      if (context.listens('step-end')) {
        context.emit('step-end', {
          turn,
          step,
          finishReason: streamed.finishReason,
          toolCalls: calls.length,
        });
      }
      steps++;
      if (signal?.aborted) throw new Aborted('tools');
      if (calls.length === 0 && context.inbox.size('next-step') === 0)
        return endTurn(context, { turn, step, steps, usage, text, deniedTools }, 'completed');
      if (steps >= context.maxSteps)
        return endTurn(context, { turn, step, steps, usage, text, deniedTools }, 'max-steps');
      step++;
    }
  } catch (error) {
    if (error instanceof Aborted || (signal?.aborted && !(error instanceof Failed))) {
      const phase = error instanceof Aborted ? error.phase : 'stream';
      const body: AbortedBody = { phase };
      const reason = signal?.reason;
      if (reason !== undefined)
        body.reason = reason instanceof Error ? reason.message : String(reason);
      session.append('agent/aborted', body, { turn, step });
      return endTurn(
        context,
        { turn, step, steps, usage, text, deniedTools },
        'aborted',
        new TurnAbortedError({ turn, step, phase }),
      );
    }
    if (error instanceof Failed) {
      return endTurn(
        context,
        { turn, step, steps, usage, text, deniedTools },
        'error',
        error.error,
      );
    }
    // Anything else is a bug (in Spine or in a plugin): the turn still ends with `turn/end`, so
    // the log says what happened and the session can be resumed. Only a log that refuses the
    // record (closed, broken store) lets the original error through.
    const bug = new SpineError({
      code: 'INTERNAL',
      message: `internal error at turn ${turn} step ${step}: ${error instanceof Error ? error.message : String(error)}; this is a bug, report it with the session log`,
      cause: error,
    });
    try {
      answerOpenCalls(context, { turn, step });
      return endTurn(context, { turn, step, steps, usage, text, deniedTools }, 'error', bug);
    } catch {
      throw error;
    }
  }
}

/**
 * Gives each tool call of the last assistant message on the surface that has no result one
 * (a turn ended by a bug between the model's answer and its tool results), so no provider
 * rejects the next request: "outcome unknown" when the tool started, else "not started".
 */
function answerOpenCalls(context: LoopContext, at: { turn: number; step: number }): void {
  const { session } = context;
  const { messages } = session.deriveMessages();
  const answered = new Set<string>();
  let index = messages.length - 1;
  for (; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'tool') answered.add(message.toolCallId);
    else break;
  }
  const last = messages[index];
  if (last?.role !== 'assistant') return;
  const open = callsOf(last.content).filter((call) => !answered.has(call.id));
  if (open.length === 0) return;
  const started = new Set<string>();
  for (const event of session.events({ from: Math.max(1, session.lastSeq - 10_000) })) {
    if (event.type === 'tool/started')
      started.add((event.body as { toolCallId: string }).toolCallId);
  }
  for (const call of open) {
    const unknown = started.has(call.id);
    session.append(
      'tool/result',
      {
        toolCallId: call.id,
        toolName: call.name,
        content: unknown
          ? 'Outcome unknown: the turn failed with an internal error while this tool was running; it may have had effects. Verify the state before retrying.'
          : 'Not started: the turn failed with an internal error before this tool ran. Run it again if it is still needed.',
        isError: true,
        outcome: unknown ? 'unknown' : 'not-started',
      },
      { ...at, surfaceOp: { op: 'append' } },
    );
  }
}

/** The tool calls of an assistant message, in order (a loop: no callback per step). */
function callsOf(content: AssistantMessageBody['content']): ToolCallPart[] {
  const calls: ToolCallPart[] = [];
  for (const part of content) if (part.type === 'tool-call') calls.push(part);
  return calls;
}

/** Where a turn stands when it ends. */
interface TurnState {
  turn: number;
  step: number;
  steps: number;
  usage: Usage;
  text: string;
  deniedTools: string[];
}

/** Records `turn/end` and reports the result (a plain function: no closure per turn). */
function endTurn(
  context: LoopContext,
  state: TurnState,
  reason: TurnResult['reason'],
  error?: SpineError,
): TurnResult {
  const { turn, step, steps, usage, text, deniedTools } = state;
  const body: TurnEndBody = { reason, steps, usage };
  if (error) body.error = { code: error.code, message: error.message };
  if (deniedTools.length > 0) body.deniedTools = deniedTools;
  context.session.append('turn/end', body, { turn, step });
  const result: TurnResult = { reason, turn, steps, usage, text, deniedTools };
  if (error) result.error = error;
  context.emit('turn-end', result);
  return result;
}

/** Writes the `next-step` inbox as user messages, then records their consumption. */
function consumeNextStep(context: LoopContext, at: { turn: number; step: number }): void {
  const items = context.inbox.items('next-step');
  if (items.length === 0) return;
  for (const item of items) {
    context.session.append(
      'user/message',
      { content: item.content, source: 'user', meta: { inboxId: item.id, queue: 'next-step' } },
      { ...at, surfaceOp: { op: 'append' } },
    );
  }
  context.inbox.consumed('next-step', items.length);
}
