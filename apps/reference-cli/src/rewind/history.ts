// Rewinding reads the whole log (the picker, the fork point, `rewindWorkspace` in
// @spine/checkpoints scan every event). A session the REPL opened lazily holds only its surface
// and recent events, so for a rewind the rest is read from the store, held only while it runs.

import type { SessionEvent, SessionLog } from '@spine/protocol';
import type { Session } from '@spine/session-log';

/** True when `session` holds every event of its log (a full open). */
function holdsEverything(session: Session): boolean {
  return session.events().length === session.lastSeq;
}

/** Every event of `session`, in seq order: the ones it holds, or read through `readEvents`. */
export async function wholeHistory(session: Session): Promise<readonly SessionEvent[]> {
  if (holdsEverything(session)) return session.events();
  const events: SessionEvent[] = [];
  for await (const event of session.readEvents({ fromSeq: 1 })) events.push(event);
  return events;
}

/**
 * `session` as a log whose `events()` and `get()` answer for every event, for readers that scan
 * it; appends and everything else go to `session` (so events appended meanwhile are seen too).
 */
export async function withWholeHistory(session: Session): Promise<SessionLog> {
  if (holdsEverything(session)) return session;
  const read = await wholeHistory(session);
  const readUpTo = read.length;
  const all = (): readonly SessionEvent[] =>
    session.lastSeq === readUpTo ? read : [...read, ...session.events({ from: readUpTo + 1 })];
  return {
    id: session.id,
    get header() {
      return session.header;
    },
    get lastSeq() {
      return session.lastSeq;
    },
    get replaceGeneration() {
      return session.replaceGeneration;
    },
    append: (type, body, options) => session.append(type, body, options),
    get: (seq) => session.get(seq) ?? read[seq - 1],
    events: (range = {}) => {
      const from = Math.max(1, range.from ?? 1);
      const to = Math.min(session.lastSeq, range.to ?? session.lastSeq);
      return all().slice(from - 1, Math.max(from - 1, to));
    },
    surface: () => session.surface(),
    deriveMessages: () => session.deriveMessages(),
    project: (event) => session.project(event),
    subscribe: (listener) => session.subscribe(listener),
    flush: () => session.flush(),
  };
}
