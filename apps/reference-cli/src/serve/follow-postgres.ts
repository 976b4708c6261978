// Following a session in a PostgreSQL store: the store's own follower (LISTEN/NOTIFY) delivers
// each committed event; the follow ends once no writer holds the session's lease (closed, or a
// crashed writer's lease expired) and the events committed before that have been read, so the
// page can say the session ended, as it does for the JSONL folder.
import type { SessionEvent, SessionStore } from '@spine/protocol';
import { wait } from './follow-jsonl.js';

/** A store with a live follower (`@spine/store-postgres`). */
export interface FollowingStore extends SessionStore {
  follow(
    id: string,
    options: { afterSeq: number; signal: AbortSignal },
  ): AsyncIterable<SessionEvent>;
}

/** Options of {@link followPostgres}. */
export interface PostgresFollowOptions {
  /** Deliver events with a seq greater than this. */
  afterSeq: number;
  /** Ends the follow (it returns). */
  signal: AbortSignal;
  /** Whether a writer holds the session's lease now. */
  leased: () => Promise<boolean>;
  /** How often the lease is looked at, in ms (default 1000). */
  pollMs?: number;
}

/** The events of session `id` after `afterSeq`, following it until its writer is gone. */
export async function* followPostgres(
  store: FollowingStore,
  id: string,
  options: PostgresFollowOptions,
): AsyncGenerator<SessionEvent> {
  const { signal } = options;
  const follow = new AbortController();
  const stop = (): void => follow.abort();
  signal.addEventListener('abort', stop);
  // The lease is looked at beside the follower; once it is gone the follower is stopped.
  const watcher = (async () => {
    while (!follow.signal.aborted) {
      await wait(options.pollMs ?? 1000, follow.signal);
      if (!follow.signal.aborted && !(await options.leased().catch(() => true))) stop();
    }
  })();
  let last = options.afterSeq;
  try {
    for await (const event of store.follow(id, { afterSeq: last, signal: follow.signal })) {
      last = event.seq;
      yield event;
    }
    if (signal.aborted) return;
    // The writer is gone: what it committed before letting go is everything there will be.
    for await (const event of store.readRange(id, { fromSeq: last + 1 })) yield event;
  } finally {
    stop();
    signal.removeEventListener('abort', stop);
    await watcher;
  }
}
