// Test helper: a session log held in an array, with what the recorder and rewind use of
// `SessionLog` (append, events, subscribe, flush). The store and workspace under test are real.
import type { SessionEvent, SessionLog } from '@spine/protocol';

/** A minimal in-memory session log with id `id`. */
export function eventLog(id: string): SessionLog {
  const events: SessionEvent[] = [];
  const listeners = new Set<(event: SessionEvent) => void>();
  const log = {
    id,
    get lastSeq() {
      return events.length;
    },
    append(type: string, body: unknown, at: { turn?: number; step?: number } = {}) {
      const event = { seq: events.length + 1, type, body, ...at } as unknown as SessionEvent;
      events.push(event);
      for (const listener of listeners) listener(event);
      return event;
    },
    events(range: { from?: number; to?: number } = {}) {
      return events.filter(
        (event) => event.seq >= (range.from ?? 1) && event.seq <= (range.to ?? Infinity),
      );
    },
    subscribe(listener: (event: SessionEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async flush() {},
  };
  return log as unknown as SessionLog;
}
