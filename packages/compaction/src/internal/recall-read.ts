// How recall_history reads the log: through the session's `readEvents` when it has one (a
// session-log Session streams any range, older events from the store, so a lazily opened
// session answers for events it does not hold), else from `events()`.

import type { SessionEvent, SessionLog, SessionRange } from '@spine/protocol';

/** A session log that may stream events it does not hold in memory. */
export type StreamingSessionLog = SessionLog & {
  readEvents?(range: SessionRange): AsyncIterable<SessionEvent>;
};

/**
 * The events with `from <= seq <= to` (clamped to the log), in seq order, only of `types` when
 * given: streamed when the session can, never gathered into an array here.
 */
export async function* eventsIn(
  session: StreamingSessionLog,
  from: number,
  to: number,
  types?: readonly string[],
): AsyncIterable<SessionEvent> {
  const first = Math.max(1, from);
  const last = Math.min(to, session.lastSeq);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first) return;
  if (typeof session.readEvents === 'function') {
    yield* session.readEvents({ fromSeq: first, toSeq: last, ...(types ? { types } : {}) });
    return;
  }
  for (const event of session.events({ from: first, to: last })) {
    if (!types || types.includes(event.type)) yield event;
  }
}

/** The event with this seq: held in memory, else read from the store through `readEvents`. */
export async function eventAt(
  session: StreamingSessionLog,
  seq: number,
): Promise<SessionEvent | undefined> {
  const held = session.get(seq);
  if (held || typeof session.readEvents !== 'function') return held;
  for await (const event of eventsIn(session, seq, seq)) return event;
  return undefined;
}
