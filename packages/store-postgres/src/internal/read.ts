// Reading stored events: parsing rows with structural checks (seq, type, at) and paging through
// a seq range without holding a cursor across a yield.

import type { SessionEvent, SessionRange } from '@spine/protocol';
import type { Pool, PoolClient } from 'pg';
import { InvalidRangeError, SessionCorruptError } from '../errors.js';

/** Parses one stored row, checking it is the event with seq `seq`. */
export function parseEvent(data: string, seq: number, where: string): SessionEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    throw new SessionCorruptError({ where, seq, reason: 'not valid JSON', cause });
  }
  const event = value as Partial<SessionEvent> | null;
  if (
    event === null ||
    typeof event !== 'object' ||
    event.seq !== seq ||
    typeof event.type !== 'string' ||
    typeof event.at !== 'string'
  ) {
    throw new SessionCorruptError({
      where,
      seq,
      reason: `expected an event object with seq ${seq}, a type and an at`,
    });
  }
  return value as SessionEvent;
}

/** Events `fromSeq..toSeq` of a session, all of them, checked to be gapless. */
export async function readEvents(
  client: Pool | PoolClient,
  options: { schema: string; sessionId: string; fromSeq: number; toSeq: number; where: string },
): Promise<SessionEvent[]> {
  const { rows } = await client.query<{ data: string }>(
    `SELECT data FROM "${options.schema}".spine_events
      WHERE session_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq`,
    [options.sessionId, options.fromSeq, options.toSeq],
  );
  const events: SessionEvent[] = [];
  for (const row of rows) {
    events.push(parseEvent(row.data, options.fromSeq + events.length, options.where));
  }
  const expected = Math.max(0, options.toSeq - options.fromSeq + 1);
  if (events.length !== expected) {
    throw new SessionCorruptError({
      where: options.where,
      seq: options.fromSeq + events.length,
      reason: `missing: the session records ${options.toSeq} events`,
    });
  }
  return events;
}

/** Throws {@link InvalidRangeError} unless `range` is well formed. */
export function checkRange(range: SessionRange): void {
  const integer = (value: unknown): boolean => Number.isSafeInteger(value);
  if (!integer(range.fromSeq) || range.fromSeq < 1) {
    throw new InvalidRangeError({
      reason: `fromSeq ${String(range.fromSeq)} is not an integer ≥ 1`,
    });
  }
  if (range.toSeq !== undefined && !integer(range.toSeq)) {
    throw new InvalidRangeError({ reason: `toSeq ${String(range.toSeq)} is not an integer` });
  }
  if (range.limit !== undefined && (!integer(range.limit) || range.limit < 0)) {
    throw new InvalidRangeError({ reason: `limit ${String(range.limit)} is not an integer ≥ 0` });
  }
}

const PAGE = 512;

/** Pages through `range` (already checked), filtering by type, stopping at `limit`. */
export async function* pageRange(
  pool: Pool,
  options: { schema: string; sessionId: string; range: SessionRange; where: string },
): AsyncGenerator<SessionEvent> {
  const { range } = options;
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  if (limit <= 0) return;
  const types = range.types ? new Set(range.types) : undefined;
  const toSeq = range.toSeq ?? Number.MAX_SAFE_INTEGER;
  let next = range.fromSeq;
  let yielded = 0;
  for (;;) {
    const { rows } = await pool.query<{ seq: string; data: string }>(
      `SELECT seq, data FROM "${options.schema}".spine_events
        WHERE session_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq LIMIT ${PAGE}`,
      [options.sessionId, next, toSeq],
    );
    for (const row of rows) {
      const event = parseEvent(row.data, Number(row.seq), options.where);
      if (types && !types.has(event.type)) continue;
      yield event;
      if (++yielded >= limit) return;
    }
    if (rows.length < PAGE) return;
    next = Number(rows[rows.length - 1]?.seq) + 1;
  }
}
