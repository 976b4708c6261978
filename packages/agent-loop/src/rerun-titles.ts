// Titles a recording set between turns (`session/title`, written by a harness when a person names
// the session or its first request does): a rerun appends them again at the same places, so its
// log keeps the recording's sequence numbers (which compaction checkpoints quote).

import type { SessionEvent } from '@spine/protocol';

/** A `session/title` event of a recording, with the turn it came before. */
export interface RecordedTitle {
  /** Its sequence number in the recording. */
  seq: number;
  /** The turn that started next (absent: none did). */
  beforeTurn?: number;
  /** Its body, appended again as recorded. */
  body: SessionEvent['body'];
}

/** The `session/title` events written outside turns, in order, with the turn each came before. */
export function recordedTitles(events: readonly SessionEvent[]): RecordedTitle[] {
  const titles: RecordedTitle[] = [];
  let open: RecordedTitle[] = [];
  let inTurn = false;
  let turns = 0;
  for (const event of events) {
    if (event.type === 'turn/start') {
      turns++;
      for (const title of open) title.beforeTurn = event.turn ?? turns;
      open = [];
      inTurn = true;
    } else if (event.type === 'turn/end') {
      inTurn = false;
    } else if (event.type === 'session/title' && !inTurn) {
      const title: RecordedTitle = { seq: event.seq, body: event.body };
      titles.push(title);
      open.push(title);
    }
  }
  return titles;
}
