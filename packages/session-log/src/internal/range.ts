import type { SessionEvent, SessionRange } from '@spine/protocol';
import { InvalidRangeError } from '../errors.js';

/**
 * Checks a `SessionRange` from a caller.
 *
 * @throws an {@link InvalidRangeError} naming what is wrong.
 */
export function checkRange(range: SessionRange): void {
  if (range === null || typeof range !== 'object') {
    throw new InvalidRangeError({ reason: 'the range is not an object' });
  }
  if (!Number.isSafeInteger(range.fromSeq) || range.fromSeq < 1) {
    throw new InvalidRangeError({ reason: `fromSeq is ${String(range.fromSeq)}` });
  }
  if (range.toSeq !== undefined && (!Number.isSafeInteger(range.toSeq) || range.toSeq < 0)) {
    throw new InvalidRangeError({ reason: `toSeq is ${String(range.toSeq)}` });
  }
  if (range.limit !== undefined && (!Number.isSafeInteger(range.limit) || range.limit < 0)) {
    throw new InvalidRangeError({ reason: `limit is ${String(range.limit)}` });
  }
  if (
    range.types !== undefined &&
    (!Array.isArray(range.types) || range.types.some((type) => typeof type !== 'string'))
  ) {
    throw new InvalidRangeError({ reason: 'types is not an array of strings' });
  }
}

/** Yields the events of `events` (in seq order) that fall in a checked `range`. */
export function* filterRange(
  events: Iterable<SessionEvent>,
  range: SessionRange,
): Generator<SessionEvent> {
  const toSeq = range.toSeq ?? Number.POSITIVE_INFINITY;
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  const types = range.types ? new Set(range.types) : undefined;
  if (limit <= 0) return;
  let yielded = 0;
  for (const event of events) {
    if (event.seq < range.fromSeq) continue;
    if (event.seq > toSeq) return;
    if (types && !types.has(event.type)) continue;
    yield event;
    if (++yielded >= limit) return;
  }
}
