import type { SessionEvent, SessionStore } from '@spine/protocol';
import { SessionNotFoundError } from '../errors.js';

/**
 * The events of a stored session, streamed from the store in seq order without loading the log
 * and without taking its lock (a running session's flushed events; a torn last line is left out).
 *
 * @throws a {@link SessionNotFoundError} when the id is unknown.
 */
export async function streamSessionEvents(
  store: SessionStore,
  id: string,
  dir: string,
): Promise<AsyncIterable<SessionEvent>> {
  if (!(await store.exists(id))) throw new SessionNotFoundError({ sessionId: id, dir });
  return store.readRange(id, { fromSeq: 1 });
}
