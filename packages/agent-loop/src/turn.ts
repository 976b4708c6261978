// The turn loop: runs steps (step.ts) until the model stops calling tools, the step limit, an
// abort or an error, and always ends the turn with `turn/end`.

import type { AbortedBody, BudgetExceededBody, TurnEndBody } from '@spine/protocol';
import {
  addUsage,
  notStartedText,
  outcomeUnknownText,
  SpineError,
  type Usage,
} from '@spine/protocol';
import { LoopDetectedError, TurnAbortedError } from './errors.js';
import { createLoopGuard } from './loop-guard.js';
import { foldedState, startedCallsFold } from './projections.js';
import { callsOf, runStep, type StepContext, type StepStart } from './step.js';
import type { TurnResult } from './types.js';

const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

/** Where a turn stands: what `turn/end` and the {@link TurnResult} report. */
interface TurnState {
  turn: number;
  step: number;
  steps: number;
  usage: Usage;
  text: string;
  deniedTools: string[];
}

/**
 * Runs the steps of one turn from `start` (a fresh step, or a retried attempt of a crashed
 * step), until the model stops calling tools and no `next-step` input waits, the step limit,
 * an abort or an unrecoverable error. Always ends with `turn/end`, then marks the turn boundary
 * (`session.checkpoint()`): the `per-turn` fsync policy syncs the turn there, and a due automatic
 * snapshot is written. A store that fails at that point rejects the run with its own error; the
 * turn is not recorded again as failed (its `turn/end` is already appended).
 */
export async function runTurnLoop(
  context: StepContext,
  start: StepStart,
  signal?: AbortSignal,
): Promise<TurnResult> {
  const result = await runTurn(context, start, signal);
  context.session.checkpoint?.();
  return result;
}

/** The steps of one turn and its `turn/end` (see {@link runTurnLoop}). */
async function runTurn(
  context: StepContext,
  start: StepStart,
  signal?: AbortSignal,
): Promise<TurnResult> {
  const state: TurnState = {
    turn: start.turn,
    step: start.step,
    steps: 0,
    usage: EMPTY_USAGE,
    text: '',
    deniedTools: [],
  };
  let next = start;
  // Loop detection (issue 38): off unless thresholds are configured; seeded with the turn's
  // events so far (a resumed, interrupted turn keeps counting).
  const loops = context.loops
    ? createLoopGuard(context.session, context.loops, { turn: start.turn })
    : undefined;
  try {
    for (;;) {
      // Before each request: a budget reached ends the turn without sending it (budget.ts).
      const exceeded = context.budget?.({
        session: context.session,
        turn: state.turn,
        step: state.step,
      });
      if (exceeded) {
        context.session.append('budget/exceeded', exceeded, { turn: state.turn, step: state.step });
        if (context.beforeTurnEnd) await beforeTurnEnd(context, state);
        return endTurn(context, state, 'budget', undefined, exceeded);
      }
      const result = await runStep(context, next, signal);
      if (result.usage) state.usage = addUsage(state.usage, result.usage);
      if (result.text) state.text = result.text;
      const denied = result.deniedTools;
      for (let i = 0; i < denied.length; i++) state.deniedTools.push(denied[i] as string);
      if (result.status === 'aborted') {
        if (context.beforeTurnEnd) await beforeTurnEnd(context, state);
        return aborted(context, state, result.phase, signal);
      }
      if (result.status === 'failed') {
        if (context.beforeTurnEnd) await beforeTurnEnd(context, state);
        return endTurn(context, state, 'error', result.error);
      }
      state.steps++;
      if (signal?.aborted) {
        if (context.beforeTurnEnd) await beforeTurnEnd(context, state);
        return aborted(context, state, 'tools', signal);
      }
      const stuck = loops?.afterStep(
        state,
        result.toolCalls > 0 || context.inbox.size('next-step') > 0,
      );
      if (stuck) {
        if (context.beforeTurnEnd) await beforeTurnEnd(context, state);
        return endTurn(context, state, 'stuck', new LoopDetectedError({ finding: stuck }));
      }
      if (result.toolCalls === 0 && context.inbox.size('next-step') === 0) {
        if (context.beforeTurnEnd) await beforeTurnEnd(context, state);
        return endTurn(context, state, 'completed');
      }
      if (state.steps >= context.maxSteps) {
        if (context.beforeTurnEnd) await beforeTurnEnd(context, state);
        return endTurn(context, state, 'max-steps');
      }
      state.step++;
      next = { turn: state.turn, step: state.step, attempt: 1, started: false };
    }
  } catch (error) {
    // Something threw while the signal was aborted (a part gave up on it): an abort.
    if (signal?.aborted) return aborted(context, state, 'stream', signal);
    // Anything else is a bug (in Spine or in a plugin): the turn still ends with `turn/end`, so
    // the log says what happened and the session can be resumed. Only a log that refuses the
    // record (closed, broken store) lets the original error through.
    const { turn, step } = state;
    const bug = new SpineError({
      code: 'INTERNAL',
      message: `internal error at turn ${turn} step ${step}: ${error instanceof Error ? error.message : String(error)}; this is a bug, report it with the session log`,
      cause: error,
    });
    try {
      answerOpenCalls(context, { turn, step });
      return endTurn(context, state, 'error', bug);
    } catch {
      throw error;
    }
  } finally {
    loops?.close();
  }
}

/**
 * Runs the `beforeTurnEnd` hook (a workspace checkpoint after the turn's last step) before
 * `turn/end` is written; the hook reports its own failures, so a rejection is ignored here.
 * Callers skip it without a hook: no promise or await on the path of a turn without one.
 */
async function beforeTurnEnd(context: StepContext, state: TurnState): Promise<void> {
  try {
    await context.beforeTurnEnd?.({ session: context.session, turn: state.turn, step: state.step });
  } catch {
    // Not the turn's failure: the turn ends as it would have.
  }
}

/** Records `agent/aborted` for `phase` and ends the turn as aborted. */
function aborted(
  context: StepContext,
  state: TurnState,
  phase: AbortedBody['phase'],
  signal?: AbortSignal,
): TurnResult {
  const { turn, step } = state;
  const body: AbortedBody = { phase };
  const reason = signal?.reason;
  if (reason !== undefined) body.reason = reason instanceof Error ? reason.message : String(reason);
  context.session.append('agent/aborted', body, { turn, step });
  return endTurn(context, state, 'aborted', new TurnAbortedError({ turn, step, phase }));
}

/**
 * Gives each tool call of the last assistant message on the surface that has no result one
 * (a turn ended by a bug between the model's answer and its tool results), so no provider
 * rejects the next request: "outcome unknown" when the tool started, else "not started".
 */
function answerOpenCalls(context: StepContext, at: { turn: number; step: number }): void {
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
  const started = new Set(foldedState(session, startedCallsFold).ids);
  for (const call of open) {
    const unknown = started.has(call.id);
    session.append(
      'tool/result',
      {
        toolCallId: call.id,
        toolName: call.name,
        content: unknown
          ? outcomeUnknownText('the turn failed with an internal error')
          : notStartedText('the turn failed with an internal error'),
        isError: true,
        outcome: unknown ? 'unknown' : 'not-started',
      },
      { ...at, surfaceOp: { op: 'append' } },
    );
  }
}

/** Records `turn/end` and reports the result (a plain function: no closure per turn). */
function endTurn(
  context: StepContext,
  state: TurnState,
  reason: TurnResult['reason'],
  error?: SpineError,
  budget?: BudgetExceededBody,
): TurnResult {
  const { turn, step, steps, usage, text, deniedTools } = state;
  const body: TurnEndBody = { reason, steps, usage };
  if (error) body.error = { code: error.code, message: error.message };
  if (deniedTools.length > 0) body.deniedTools = deniedTools;
  context.session.append('turn/end', body, { turn, step });
  const result: TurnResult = { reason, turn, steps, usage, text, deniedTools };
  if (error) result.error = error;
  if (budget) result.budget = budget;
  context.emit('turn-end', result);
  return result;
}
