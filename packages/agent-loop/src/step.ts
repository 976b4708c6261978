// One agent step, phase by phase: prepare → fold (compaction on pressure) → request (build,
// record, stream; retry, or compact on overflow) → commit → tools → step end. Every phase
// returns a value; a step that cannot go on returns `aborted` (with the phase) or `failed` (with
// the error) to the turn loop (turn.ts), which records it. Only bugs throw.
// The file is over 400 lines because a reader follows a whole step here without leaving it
// (issue 15's "one step, one file"); the parts it calls live in files named for what they do.

import type { AbortedBody, AttemptBody, PrefixChangeCause } from '@spine/protocol';
import {
  type AssistantMessageBody,
  type CompactionEngine,
  type FinishReason,
  type ModelClient,
  type ModelRequest,
  notStartedText,
  outcomeUnknownText,
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
  type Usage,
} from '@spine/protocol';
import type { Inbox } from './inbox.js';
import type { LoopThresholds } from './loop-detector.js';
import { type ModelAnswer, readModelStream } from './model-stream.js';
import { exceedsWindow, overflowHooks, refuseOversizedRequest } from './oversized-request.js';
import type { BuildRequestInput, RequestBuilder } from './request-builder.js';
import { failedAttempt, handleRequestError } from './request-error.js';
import { fitToolResult } from './result-fit.js';
import { sleep } from './retry.js';
import { runCompaction } from './run-compaction.js';
import type { RuntimeContextProjection } from './runtime-context.js';
import type { PromptSnapshot, SystemPrompt } from './system-prompt.js';
import { assignToolCallIds, settleToolCallIds } from './tool-call-ids.js';
import type { AgentEvents, AgentOptions } from './types.js';

/** Everything a step needs; the agent owns it and may swap the model between turns. */
export interface StepContext {
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
  /** Loop detection thresholds; absent: no detection. */
  loops?: LoopThresholds;
  approve?: ToolRunOptions['approve'];
  reasoning?: ModelRequest['reasoning'];
  agentName?: string;
  beforeTools?: AgentOptions['beforeTools'];
  beforeTurnEnd?: AgentOptions['beforeTurnEnd'];
  budget?: AgentOptions['budget'];
  builder: RequestBuilder;
  projection: RuntimeContextProjection;
  inbox: Inbox;
  emit: <K extends keyof AgentEvents>(name: K, ...args: Parameters<AgentEvents[K]>) => void;
  /** True when someone listens to `name` (frequent events skip building their payload otherwise). */
  listens(name: keyof AgentEvents): boolean;
  addUsage(usage: Usage): void;
}

/** Which step runs: `attempt` > 1 and `started` when a crashed step is retried. */
export interface StepStart {
  turn: number;
  step: number;
  attempt: number;
  /** True when `step/start` of `step` is already in the log. */
  started: boolean;
}

/** What a step produced before it ended (nothing when it ended before the model answered). */
interface StepOutput {
  /** The committed answer's usage. */
  usage?: Usage;
  /** The committed answer's text ('' when none). */
  text: string;
  /** Tools denied in this step, in order. */
  deniedTools: string[];
}

/** A step that ran to `step/end`. */
export interface StepDone extends StepOutput {
  status: 'done';
  finishReason: FinishReason;
  toolCalls: number;
}

/** A step that ended early: aborted in `phase`, or failed with `error`. */
export type StepStopped =
  | (StepOutput & { status: 'aborted'; phase: AbortedBody['phase'] })
  | (StepOutput & { status: 'failed'; error: SpineError });

/** How a step ended. */
export type StepResult = StepDone | StepStopped;

type Stop =
  | { status: 'aborted'; phase: AbortedBody['phase'] }
  | { status: 'failed'; error: SpineError };
type At = { turn: number; step: number };
const NOTHING: StepOutput = { text: '', deniedTools: [] };
const NO_OPTIONS: { signal?: AbortSignal } = {};
/** The causes of a request that extended the previous prefix (shared: only read). */
const NO_CAUSES: PrefixChangeCause[] = [];

/** Runs one step; see the file header for its phases. */
export async function runStep(
  context: StepContext,
  start: StepStart,
  signal?: AbortSignal,
): Promise<StepResult> {
  const at = { turn: start.turn, step: start.step };
  // 1. Prepare: `step/start`, next-step inbox, system prompt.
  const snapshot = prepare(context, start, signal);
  if ('status' in snapshot) return { ...NOTHING, ...snapshot };
  // 2. Fold: compaction on pressure (the engine decides whether it is needed).
  if (context.compaction) {
    await runCompaction(context, snapshot, 'pressure', at, signal);
    if (signal?.aborted) return { ...NOTHING, status: 'aborted', phase: 'compaction' };
  }
  // 3. Request: runtime context, build and record, stream; failed attempts retried or compacted.
  const answer = await request(context, snapshot, start, signal);
  if ('status' in answer) return { ...NOTHING, ...answer };
  // 4. Commit the answer: `assistant/message`, then its `assistant/attempt`. A tool call id the
  // compact id set cannot rule out is first checked against the log (rare).
  const settling = settleToolCallIds(context.session, answer.message.content, at);
  if (settling) await settling;
  const { body, usage, text } = commit(context, answer, at);
  // 5. Tools: every call gets a result.
  const calls = callsOf(body.content);
  for (let i = 0; i < calls.length; i++) {
    context.emit('tool-call', { ...at, call: calls[i] as ToolCallPart });
  }
  if (calls.length > 0 && context.beforeTools) {
    const failure = await beforeTools(context, calls, at, signal);
    if (failure) return { ...NOTHING, text, ...(usage ? { usage } : {}), ...failure };
  }
  const tools: { deniedTools: string[]; error?: SpineError } =
    calls.length > 0 ? await runTools(context, calls, at, signal) : NOTHING;
  const { deniedTools } = tools;
  if (tools.error) {
    const failed: StepStopped = { status: 'failed', error: tools.error, text, deniedTools };
    if (usage) failed.usage = usage;
    return failed;
  }
  // 6. Step end.
  const { finishReason } = answer;
  const toolCalls = calls.length;
  context.session.append('step/end', { finishReason, toolCalls }, at);
  if (context.listens('step-end')) context.emit('step-end', { ...at, finishReason, toolCalls });
  // Built in one literal (no spread of an intermediate object): one allocation per step.
  const done: StepDone = { status: 'done', finishReason, toolCalls, text, deniedTools };
  if (usage) done.usage = usage;
  return done;
}

/** Phase 1: `step/start`, queued `next-step` input, the prompt snapshot. */
function prepare(
  context: StepContext,
  start: StepStart,
  signal?: AbortSignal,
): PromptSnapshot | Stop {
  if (signal?.aborted) return { status: 'aborted', phase: 'pre-step' };
  const { session, inbox } = context;
  const at = { turn: start.turn, step: start.step };
  if (!start.started) session.append('step/start', {}, at);
  if (context.listens('step-start')) context.emit('step-start', { ...at, attempt: start.attempt });
  const items = inbox.items('next-step');
  if (items.length > 0) {
    for (const item of items) {
      session.append(
        'user/message',
        { content: item.content, source: 'user', meta: { inboxId: item.id, queue: 'next-step' } },
        { ...at, surfaceOp: { op: 'append' } },
      );
    }
    inbox.consumed('next-step', items.length);
  }
  return context.prompt.assemble({ tools: context.tools.specs(context.agentName) });
}

/** The answer of a step's successful attempt, with where its request was recorded. */
interface Answer extends ModelAnswer {
  headerSeq: number;
  /** What broke the request's prefix (empty when it extended the previous one). */
  prefixCauses: PrefixChangeCause[];
  attempt: number;
}

/**
 * Phase 3: per attempt, project the runtime context, build and record the request, stream it.
 * A failed attempt is recorded (`assistant/attempt`) and the request-error chain decides:
 * compact and retry, retry after a delay, or fail.
 */
async function request(
  context: StepContext,
  snapshot: PromptSnapshot,
  position: StepStart,
  signal?: AbortSignal,
): Promise<Answer | Stop> {
  const { session } = context;
  const at = { turn: position.turn, step: position.step };
  let attempt = position.attempt;
  let overflowCompactions = 0;
  for (;;) {
    // Written after any compaction of this step, so the model always sees the current state
    // (nothing is written when it is unchanged and still on the surface).
    context.projection.project(snapshot.contexts, at);
    const measure = context.meter?.measure({
      session,
      system: snapshot.system,
      tools: snapshot.tools,
    });
    // A request estimated not to fit is not sent: compacted for, or the step fails.
    if (measure && exceedsWindow(context, measure.tokens)) {
      const refused = await refuseOversizedRequest(
        context,
        snapshot,
        { at, tokens: measure.tokens, overflowCompactions },
        signal,
      );
      if (refused.status !== 'compacted') return refused;
      overflowCompactions++;
      continue;
    }
    const input: BuildRequestInput = {
      snapshot,
      modelId: context.modelId,
      provider: context.model.provider,
      turn: position.turn,
      step: position.step,
      attempt,
    };
    if (context.maxOutputTokens !== undefined) input.maxOutputTokens = context.maxOutputTokens;
    if (context.reasoning !== undefined) input.reasoning = context.reasoning;
    // Asked per request: the model may have been switched since the last one.
    const imageFallback = context.model.imageFallback?.(context.modelId);
    if (imageFallback !== undefined) input.imageFallback = imageFallback;
    if (measure) input.estimatedTokens = measure.tokens;
    if (signal?.aborted) return { status: 'aborted', phase: 'stream' };
    const built = context.builder.buildRequest(input, signal ? { signal } : NO_OPTIONS);
    let answer: ModelAnswer;
    try {
      answer = await readModelStream(context, built.request, at, signal);
    } catch (error) {
      const record = failedAttempt(error, built.headerSeq, attempt, signal?.aborted === true);
      session.append('assistant/attempt', record, at);
      if (signal?.aborted) return { status: 'aborted', phase: 'stream' };
      const { aborted: compactionAborted, ...hooks } = overflowHooks(context, snapshot, at, signal);
      const decision = await handleRequestError({
        error,
        attempt,
        overflowCompactions,
        retryPolicy: context.retryPolicy,
        contextWindow: context.contextWindow,
        ...hooks,
      });
      if (compactionAborted()) return { status: 'aborted', phase: 'compaction' };
      if (!decision.retry) return { status: 'failed', error: decision.error };
      if (decision.compactionId !== undefined) overflowCompactions++;
      const retry = {
        failedAttempt: attempt,
        nextAttempt: attempt + 1,
        delayMs: decision.delayMs,
        reason: decision.reason,
      };
      session.append(
        'llm/retry',
        {
          ...retry,
          ...(record.code ? { code: record.code } : {}),
          ...(decision.compactionId !== undefined ? { compactionId: decision.compactionId } : {}),
        },
        at,
      );
      context.emit('retry', { ...at, ...retry });
      try {
        await sleep(decision.delayMs, signal);
      } catch {
        return { status: 'aborted', phase: 'retry-wait' };
      }
      attempt++;
      session.append('llm/retry-started', { attempt }, at);
      continue;
    }
    if (measure && answer.usage) {
      const reportedTokens = promptTokensOf(answer.usage);
      context.meter?.observe({ rawTokens: measure.rawTokens, reportedTokens });
    }
    const prefixCauses = built.header.prefix.extends ? NO_CAUSES : built.header.prefix.causes;
    // One literal, optional fields added after (a spread of `answer` costs a copy per step).
    const result: Answer = {
      message: answer.message,
      finishReason: answer.finishReason,
      headerSeq: built.headerSeq,
      prefixCauses,
      attempt,
    };
    if (answer.rawFinishReason !== undefined) result.rawFinishReason = answer.rawFinishReason;
    if (answer.usage) result.usage = answer.usage;
    return result;
  }
}

/** Phase 4: appends the answer (tool call ids made unique) and its `assistant/attempt`. */
function commit(
  context: StepContext,
  answer: Answer,
  at: At,
): { body: AssistantMessageBody; usage?: Usage; text: string } {
  const { session } = context;
  const body: AssistantMessageBody = {
    // Ids unique in the session before they reach the surface (the provider's are kept).
    content: assignToolCallIds(session, answer.message.content, at),
    finishReason: answer.finishReason,
    model: context.modelId,
    provider: context.model.provider,
    attempt: answer.attempt,
  };
  if (answer.rawFinishReason !== undefined) body.rawFinishReason = answer.rawFinishReason;
  if (answer.usage) body.usage = answer.usage;
  const messageEvent = session.append('assistant/message', body, {
    ...at,
    surfaceOp: { op: 'append' },
  });
  const outcome: AttemptBody = {
    request: answer.headerSeq,
    attempt: answer.attempt,
    outcome: 'ok',
    messageSeq: messageEvent.seq,
  };
  if (answer.prefixCauses.length > 0) outcome.prefixCauses = answer.prefixCauses;
  const { usage } = answer;
  if (usage) {
    outcome.usage = usage;
    outcome.cacheHitTokens = usage.cacheReadTokens;
    outcome.cacheMissTokens = usage.inputTokens + usage.cacheWriteTokens;
    context.addUsage(usage);
  }
  session.append('assistant/attempt', outcome, at);
  return usage
    ? { body, usage, text: textOf(answer.message) }
    : { body, text: textOf(answer.message) };
}

/**
 * Phase 5: runs the calls through the scheduler, appending `tool/approval`, `tool/started` and
 * `tool/result` as it reports them. Every call ends up with a result ("not started" or "outcome
 * unknown" when the scheduler failed or the turn was aborted); a failing scheduler fails the step.
 */
async function runTools(
  context: StepContext,
  calls: readonly ToolCallPart[],
  at: At,
  signal?: AbortSignal,
): Promise<{ deniedTools: string[]; error?: SpineError }> {
  const { session } = context;
  const deniedTools: string[] = [];
  const answered = new Set<string>();
  const started = new Set<string>();
  const fit = {
    contextWindow: context.contextWindow,
    at,
    ...(context.maxOutputTokens === undefined ? {} : { maxOutputTokens: context.maxOutputTokens }),
    ...(context.meter ? { meter: context.meter } : {}),
  };
  const record = (result: ToolResultBody): void => {
    if (answered.has(result.toolCallId)) return;
    answered.add(result.toolCallId);
    // A result that could never fit the window is cut (the whole output stays in the log).
    const body = fitToolResult(session, result, fit);
    session.append('tool/result', body, { ...at, surfaceOp: { op: 'append' } });
    if (body.outcome === 'denied') deniedTools.push(body.toolName);
    context.emit('tool-result', { ...at, result: body });
  };
  const closeOpen = (why: string): void => {
    for (const call of calls) {
      if (answered.has(call.id)) continue;
      const unknown = started.has(call.id);
      record({
        toolCallId: call.id,
        toolName: call.name,
        content: unknown ? outcomeUnknownText(why) : notStartedText(why),
        isError: true,
        outcome: unknown ? 'unknown' : 'not-started',
      });
    }
  };
  if (!signal?.aborted) {
    const options: ToolRunOptions = {
      onEvent: (event) => {
        switch (event.type) {
          case 'approval':
            session.append('tool/approval', event.body, at);
            break;
          case 'started': {
            started.add(event.toolCallId);
            const { toolCallId, toolName, arguments: args } = event;
            session.append('tool/started', { toolCallId, toolName, arguments: args }, at);
            break;
          }
          case 'progress':
            context.emit('tool-progress', {
              ...at,
              toolCallId: event.toolCallId,
              ...(event.message !== undefined ? { message: event.message } : {}),
              ...(event.data !== undefined ? { data: event.data } : {}),
            });
            break;
          case 'result':
            record(event.body);
            break;
        }
      },
    };
    if (signal) options.signal = signal;
    if (context.approve) options.approve = context.approve;
    if (context.agentName) options.agent = context.agentName;
    try {
      for (const result of await context.tools.run(calls, options)) record(result);
    } catch (error) {
      closeOpen('the tool runtime failed');
      const failure = SpineError.isInstance(error)
        ? error
        : new SpineError({
            code: 'INTERNAL',
            message: `the tool scheduler failed: ${String(error)}; report this bug`,
            cause: error,
          });
      return { deniedTools, error: failure };
    }
  }
  closeOpen('the turn was aborted');
  return { deniedTools };
}

/** Runs the `beforeTools` hook; a rejection answers every call "not started" and fails the step. */
async function beforeTools(
  context: StepContext,
  calls: readonly ToolCallPart[],
  at: At,
  signal?: AbortSignal,
): Promise<{ status: 'failed'; error: SpineError; deniedTools: string[] } | undefined> {
  try {
    await context.beforeTools?.({
      session: context.session,
      ...at,
      calls,
      ...(signal ? { signal } : {}),
    });
    return undefined;
  } catch (error) {
    const why = 'the step could not prepare its tools';
    for (const call of calls) {
      const body: ToolResultBody = {
        toolCallId: call.id,
        toolName: call.name,
        content: notStartedText(why),
        isError: true,
        outcome: 'not-started',
      };
      context.session.append('tool/result', body, { ...at, surfaceOp: { op: 'append' } });
    }
    const failure = SpineError.isInstance(error)
      ? error
      : new SpineError({
          code: 'INTERNAL',
          message: `beforeTools failed: ${String(error)}`,
          cause: error,
        });
    return { status: 'failed', error: failure, deniedTools: [] };
  }
}

/** The tool calls of an assistant message, in order (a loop: no callback per step). */
export function callsOf(content: AssistantMessageBody['content']): ToolCallPart[] {
  const calls: ToolCallPart[] = [];
  for (const part of content) if (part.type === 'tool-call') calls.push(part);
  return calls;
}
