import type { SessionEvent, SurfaceOp } from '@spine/protocol';

/**
 * The structural checks a stored event gets on open, instead of schema validation: trusted
 * data only needs the right shape and the next seq. Returns why `value` is not an event, or
 * undefined when it is.
 */
export function structuralProblem(value: unknown, expectedSeq: number): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'not a JSON object';
  const event = value as Partial<SessionEvent>;
  if (event.seq !== expectedSeq) {
    return typeof event.seq === 'number'
      ? `seq ${event.seq} where ${expectedSeq} was expected (seqs must be gapless)`
      : 'no numeric seq';
  }
  if (typeof event.type !== 'string' || event.type.length === 0) return 'no event type';
  if (typeof event.at !== 'string') return 'no "at" timestamp';
  if (!('body' in event)) return 'no body';
  const op = event.surfaceOp;
  if (op !== undefined) {
    if (op === null || typeof op !== 'object') return 'a malformed surfaceOp';
    if (
      op.op !== 'append' &&
      (op.op !== 'replace' || typeof op.start !== 'number' || typeof op.end !== 'number')
    ) {
      return 'a malformed surfaceOp';
    }
  }
  if (expectedSeq === 1 && event.type !== 'session/header')
    return 'the first event is not a session/header';
  return undefined;
}

/**
 * The one `{ op: 'append' }` shared by every event that has it: stored events (to save memory on
 * open) and appended ones; frozen, so the JSONL encoder writes it from cached bytes.
 */
export const APPEND_OP: SurfaceOp = Object.freeze({ op: 'append' as const });

/**
 * Shrinks a parsed event in place: repeated strings (`type`) and the append op are shared
 * instead of held once per event, which keeps a large opened session close to its file size.
 */
export function compactEvent(event: SessionEvent, types: Map<string, string>): void {
  const type = types.get(event.type);
  if (type === undefined) types.set(event.type, event.type);
  else event.type = type;
  if (event.surfaceOp?.op === 'append') event.surfaceOp = APPEND_OP;
}
