import type { AppendOptions, SessionEvent, SurfaceOp } from '@spine/protocol';
import { IllegalSurfaceOpError, InvalidEventError } from './errors.js';
import { nowIso } from './internal/clock.js';
import { APPEND_OP } from './internal/event-check.js';

/** Append options after validation, normalised to fresh objects. */
export interface CheckedAppendOptions {
  turn: number | undefined;
  step: number | undefined;
  surfaceOp: SurfaceOp | undefined;
  sourceEventSeqs: number[] | undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Validates the options of one append: turn and step are non-negative integers that never go
 * backwards (a step compares within its turn), the surface op is well formed, and source seqs
 * name existing events.
 *
 * @throws an {@link InvalidEventError} for a turn or step that is not a non-negative integer or
 *   goes backwards, or a source seq outside the log.
 * @throws an {@link IllegalSurfaceOpError} for a surface op that is neither `append` nor a
 *   `replace` with positive integer seqs.
 */
export function checkAppendOptions(
  type: string,
  options: AppendOptions,
  state: { lastSeq: number; lastTurn: number; lastStep: number },
): CheckedAppendOptions {
  const { lastSeq, lastTurn, lastStep } = state;
  const { turn, step, surfaceOp, sourceEventSeqs } = options;
  if (turn !== undefined) {
    if (!isCount(turn))
      throw new InvalidEventError({
        type,
        reason: `turn ${String(turn)} is not a non-negative integer`,
      });
    if (turn < lastTurn)
      throw new InvalidEventError({
        type,
        reason: `turn ${turn} goes backwards (the log is at turn ${lastTurn})`,
      });
  }
  if (step !== undefined) {
    if (!isCount(step))
      throw new InvalidEventError({
        type,
        reason: `step ${String(step)} is not a non-negative integer`,
      });
    const sameTurn = turn === undefined || turn === lastTurn;
    if (sameTurn && step < lastStep) {
      throw new InvalidEventError({
        type,
        reason: `step ${step} goes backwards (turn ${lastTurn} is at step ${lastStep})`,
      });
    }
  }
  let op: SurfaceOp | undefined;
  if (surfaceOp !== undefined) {
    if (surfaceOp === null || typeof surfaceOp !== 'object') {
      throw new IllegalSurfaceOpError({
        type,
        reason: 'surfaceOp must be { op: "append" } or { op: "replace", start, end }',
      });
    }
    if (surfaceOp.op === 'append') op = APPEND_OP;
    else if (surfaceOp.op === 'replace') {
      const { start, end } = surfaceOp;
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < 1) {
        throw new IllegalSurfaceOpError({
          type,
          reason: 'replace needs positive integer seqs start and end',
        });
      }
      op = { op: 'replace', start, end };
    } else {
      throw new IllegalSurfaceOpError({
        type,
        reason: `unknown surface op ${JSON.stringify((surfaceOp as { op?: unknown }).op)}`,
      });
    }
  }
  let sources: number[] | undefined;
  if (sourceEventSeqs !== undefined) {
    if (!Array.isArray(sourceEventSeqs))
      throw new InvalidEventError({ type, reason: 'sourceEventSeqs must be an array of seqs' });
    for (const seq of sourceEventSeqs) {
      if (!Number.isInteger(seq) || seq < 1 || seq > lastSeq) {
        throw new InvalidEventError({
          type,
          reason: `sourceEventSeqs names seq ${String(seq)}, which is not in the log (1..${lastSeq})`,
        });
      }
    }
    sources = [...sourceEventSeqs];
  }
  return { turn, step, surfaceOp: op, sourceEventSeqs: sources };
}

/**
 * Builds an appended event with its fields in the stored order. The common shapes (with or
 * without turn and step, every event an agent loop writes has both) are single object literals,
 * so V8 keeps every field in the object instead of a separately allocated store.
 */
export function buildEvent<Body>(
  seq: number,
  type: string,
  body: Body,
  checked: CheckedAppendOptions,
): SessionEvent<Body> {
  const at = nowIso();
  const { turn, step, surfaceOp, sourceEventSeqs } = checked;
  if (sourceEventSeqs === undefined) {
    if (turn !== undefined && step !== undefined) {
      return surfaceOp
        ? { seq, type, at, body, turn, step, surfaceOp }
        : { seq, type, at, body, turn, step };
    }
    if (turn === undefined && step === undefined) {
      return surfaceOp ? { seq, type, at, body, surfaceOp } : { seq, type, at, body };
    }
  }
  const event: SessionEvent<Body> = { seq, type, at, body };
  if (turn !== undefined) event.turn = turn;
  if (step !== undefined) event.step = step;
  if (surfaceOp) event.surfaceOp = surfaceOp;
  if (sourceEventSeqs) event.sourceEventSeqs = sourceEventSeqs;
  return event;
}
