// Following a session in the JSONL folder: the events after a seq, then each new one as the
// writer commits it (polled; a torn last line is left out until it is whole). The follow ends when
// no writer holds the session's lock and nothing new came: the session is closed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent, SessionStore } from '@spine/protocol';

/** Options of {@link followJsonl}. */
export interface JsonlFollowOptions {
  /** Deliver events with a seq greater than this. */
  afterSeq: number;
  /** Ends the follow (it returns). */
  signal: AbortSignal;
  /** How often the file is read again, in ms (default 200). */
  pollMs?: number;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export const wait = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });

/** The events of session `id` in `dir` after `afterSeq`, following it until it is closed. */
export async function* followJsonl(
  store: SessionStore,
  dir: string,
  id: string,
  options: JsonlFollowOptions,
): AsyncGenerator<SessionEvent> {
  let last = options.afterSeq;
  const lock = join(dir, `${id}.jsonl.lock`);
  while (!options.signal.aborted) {
    // Whether a writer was there before the read: if it was gone already, what the read
    // finds is everything the session will ever have.
    const open = existsSync(lock);
    let fresh = 0;
    for await (const event of store.readRange(id, { fromSeq: last + 1 })) {
      last = event.seq;
      fresh++;
      yield event;
    }
    if (!open && fresh === 0) return;
    await wait(options.pollMs ?? 200, options.signal);
  }
}
