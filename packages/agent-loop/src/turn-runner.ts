import {
  type AssistantMessage,
  type AssistantMessageBody,
  addUsage,
  type CompactionEngine,
  type FinishReason,
  type ModelClient,
  ModelError,
  type ModelRequest,
  promptTokensOf,
  type RetryPolicy,
  type SessionLog,
  SpineError,
  type TokenMeter,
  type ToolCallPart,
  type ToolResultBody,
  type ToolRunOptions,
  type ToolScheduler,
  textOf,
  toolCallsOf,
  type Usage,
} from '@spine/protocol';
import { TurnAbortedError } from './errors.js';
import type { Inbox } from './inbox.js';
import type { AbortedBody, AttemptBody, TurnEndBody } from './records.js';
import type { RequestBuilder } from './request-builder.js';
import { handleRequestError, type RequestErrorContext } from './request-error.js';
import { sleep } from './retry.js';
import type { RuntimeContextProjection } from './runtime-context.js';
import type { PromptSnapshot, SystemPrompt } from './system-prompt.js';
import type { AgentEvents, TurnResult } from './types.js';

/** Everything one turn needs; the agent owns it and may swap the model between turns. */
export interface LoopContext {
  session: SessionLog;
  model: ModelClient;
  modelId: string;
  contextWindow: number;
  maxOutputTokens?: number;
  tools: ToolScheduler;
  prompt: SystemPrompt;
  compaction?: CompactionEngine;
  retryPolicy: RetryPolicy;
  meter?: TokenMeter;
  maxSteps: number;
  approve?: ToolRunOptions['approve'];
  reasoning?: ModelRequest['reasoning'];
  agentName?: string;
  builder: RequestBuilder;
  projection: RuntimeContextProjection;
  inbox: Inbox;
  emit: <K extends keyof AgentEvents>(name: K, ...args: Parameters<AgentEvents[K]>) => void;
  addUsage(usage: Usage): void;
}

/** Where a turn's loop starts: a fresh step, or a retried attempt of a crashed step. */
export interface LoopStart {
  turn: number;
  step: number;
  attempt: number;
  /** True when `step/start` of `step` is already in the log. */
  stepStarted: boolean;
}

class Aborted {
  constructor(readonly phase: AbortedBody['phase']) {}
}

class Failed {
  constructor(readonly error: SpineError) {}
}

const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

interface Streamed {
  message: AssistantMessage;
  finishReason: FinishReason;
  rawFinishReason?: string;
  usage?: Usage;
  headerSeq: number;
  attempt: number;
}

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
  const finish = (reason: TurnResult['reason'], error?: SpineError): TurnResult => {
    const body: TurnEndBody = { reason, steps, usage };
    if (error) body.error = { code: error.code, message: error.message };
    if (deniedTools.length > 0) body.deniedTools = deniedTools;
    session.append('turn/end', body, { turn, step });
    const result: TurnResult = { reason, turn, steps, usage, text, deniedTools };
    if (error) result.error = error;
    context.emit('turn-end', result);
    return result;
  };

  try {
    for (;;) {
      if (signal?.aborted) throw new Aborted('pre-step');
      const at = { turn, step };
      if (!stepStarted) session.append('step/start', {}, at);
      stepStarted = false;
      context.emit('step-start', { turn, step, attempt });
      consumeNextStep(context, at);
      const snapshot = context.prompt.assemble({ tools: context.tools.specs(context.agentName) });
      context.projection.project(snapshot.contexts, at);
      if (context.compaction) await compact(context, snapshot, 'pressure', at, signal);

      const streamed = await attempts(context, snapshot, { turn, step, attempt }, signal);
      attempt = 1;
      const body: AssistantMessageBody = {
        content: streamed.message.content,
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

      const calls = toolCallsOf(streamed.message);
      for (const call of calls) context.emit('tool-call', { turn, step, call });
      if (calls.length > 0) await runTools(context, calls, at, deniedTools, signal);
      session.append(
        'step/end',
        { finishReason: streamed.finishReason, toolCalls: calls.length },
        at,
      );
      context.emit('step-end', {
        turn,
        step,
        finishReason: streamed.finishReason,
        toolCalls: calls.length,
      });
      steps++;
      if (signal?.aborted) throw new Aborted('tools');
      if (calls.length === 0 && context.inbox.size('next-step') === 0) return finish('completed');
      if (steps >= context.maxSteps) return finish('max-steps');
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
      return finish('aborted', new TurnAbortedError({ turn, step, phase }));
    }
    if (error instanceof Failed) return finish('error', error.error);
    throw error;
  }
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

async function compact(
  context: LoopContext,
  snapshot: PromptSnapshot,
  reason: 'pressure' | 'overflow',
  at: { turn: number; step: number },
  signal?: AbortSignal,
): Promise<import('@spine/protocol').CompactionOutcome | undefined> {
  const engine = context.compaction;
  if (!engine) return undefined;
  const request: import('@spine/protocol').CompactionContext = {
    session: context.session,
    reason,
    contextWindow: context.contextWindow,
    system: snapshot.system,
    tools: snapshot.tools,
    ...at,
  };
  if (context.maxOutputTokens !== undefined) request.maxOutputTokens = context.maxOutputTokens;
  if (signal) request.signal = signal;
  const outcome = await engine.compact(request);
  if (signal?.aborted) throw new Aborted('compaction');
  if (outcome.status === 'compacted') context.emit('compaction', { ...at, outcome });
  return outcome;
}

async function attempts(
  context: LoopContext,
  snapshot: PromptSnapshot,
  position: { turn: number; step: number; attempt: number },
  signal?: AbortSignal,
): Promise<Streamed> {
  const { session } = context;
  const { turn, step } = position;
  const at = { turn, step };
  let attempt = position.attempt;
  let overflowCompactions = 0;
  for (;;) {
    const measure = context.meter?.measure({
      session,
      system: snapshot.system,
      tools: snapshot.tools,
    });
    const built = context.builder.buildRequest(
      {
        snapshot,
        modelId: context.modelId,
        provider: context.model.provider,
        turn,
        step,
        attempt,
        ...(context.maxOutputTokens !== undefined
          ? { maxOutputTokens: context.maxOutputTokens }
          : {}),
        ...(context.reasoning !== undefined ? { reasoning: context.reasoning } : {}),
        ...(measure ? { estimatedTokens: measure.tokens } : {}),
      },
      signal ? { signal } : {},
    );
    try {
      const streamed = await stream(context, built.request, at, signal);
      if (measure && streamed.usage) {
        context.meter?.observe({
          rawTokens: measure.rawTokens,
          reportedTokens: promptTokensOf(streamed.usage),
        });
      }
      return { ...streamed, headerSeq: built.headerSeq, attempt };
    } catch (error) {
      const record: AttemptBody = {
        request: built.headerSeq,
        attempt,
        outcome: signal?.aborted ? 'aborted' : 'error',
      };
      if (SpineError.isInstance(error)) record.code = error.code;
      record.message = error instanceof Error ? error.message : String(error);
      if (error instanceof ModelError) {
        record.retryable = error.retryable;
        if (error.status !== undefined) record.status = error.status;
      }
      session.append('assistant/attempt', record, at);
      if (signal?.aborted) throw new Aborted('stream');
      const errorContext: RequestErrorContext = {
        error,
        attempt,
        overflowCompactions,
        retryPolicy: context.retryPolicy,
        contextWindow: context.contextWindow,
        compact: context.compaction
          ? () => compact(context, snapshot, 'overflow', at, signal)
          : undefined,
      };
      const decision = await handleRequestError(errorContext);
      if (!decision.retry) throw new Failed(decision.error);
      if (decision.compactionId !== undefined) overflowCompactions++;
      session.append(
        'llm/retry',
        {
          failedAttempt: attempt,
          nextAttempt: attempt + 1,
          delayMs: decision.delayMs,
          reason: decision.reason,
          ...(record.code ? { code: record.code } : {}),
          ...(decision.compactionId !== undefined ? { compactionId: decision.compactionId } : {}),
        },
        at,
      );
      context.emit('retry', {
        ...at,
        failedAttempt: attempt,
        nextAttempt: attempt + 1,
        delayMs: decision.delayMs,
        reason: decision.reason,
      });
      try {
        await sleep(decision.delayMs, signal);
      } catch {
        throw new Aborted('retry-wait');
      }
      attempt++;
      session.append('llm/retry-started', { attempt }, at);
    }
  }
}

async function stream(
  context: LoopContext,
  request: ModelRequest,
  at: { turn: number; step: number },
  signal?: AbortSignal,
): Promise<Omit<Streamed, 'headerSeq' | 'attempt'>> {
  for await (const event of context.model.stream(request, signal ? { signal } : {})) {
    switch (event.type) {
      case 'text-delta':
        context.emit('text-delta', { ...at, text: event.text });
        break;
      case 'reasoning-delta':
        context.emit('reasoning-delta', { ...at, text: event.text });
        break;
      case 'finish': {
        const result: Omit<Streamed, 'headerSeq' | 'attempt'> = {
          message: event.message,
          finishReason: event.finishReason,
        };
        if (event.rawFinishReason !== undefined) result.rawFinishReason = event.rawFinishReason;
        if (event.usage) result.usage = event.usage;
        return result;
      }
    }
  }
  throw new ModelError({
    code: 'STREAM_BROKEN',
    message: 'the model stream ended without a finish event',
    provider: context.model.provider,
    retryable: true,
  });
}

async function runTools(
  context: LoopContext,
  calls: readonly ToolCallPart[],
  at: { turn: number; step: number },
  deniedTools: string[],
  signal?: AbortSignal,
): Promise<void> {
  const { session } = context;
  const answered = new Set<string>();
  const commit = (body: ToolResultBody): void => {
    if (answered.has(body.toolCallId)) return;
    answered.add(body.toolCallId);
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
