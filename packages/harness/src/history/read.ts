import type { SessionEvent, SessionStore } from '@spine/protocol';
import { SessionNotFoundError } from '../errors.js';

/**
 * The events of a stored session, streamed from the store in seq order without loading the log
 * and without taking its lock (a running session's flushed events; a torn last line is left out).
 *
 * @throws {SessionNotFoundError} when the id is unknown.
 */
export async function streamSessionEvents(
  store: SessionStore,
  id: string,
  dir: string,
): Promise<AsyncIterable<SessionEvent>> {
  if (!(await store.exists(id))) throw new SessionNotFoundError({ sessionId: id, dir });
  return store.readRange(id, { fromSeq: 1 });
}

/**
 * True when the session started a subagent whose `agent/child/start` has no `agent/child/end`
 * (linked by child session id, as `childLinks` in @spine/subagents links them): only then has
 * a crash left a child to close. Streamed; nothing but one flag per child is held.
 */
export async function hasOpenChildren(store: SessionStore, id: string): Promise<boolean> {
  const ended: boolean[] = [];
  const latest = new Map<string, number>();
  const types = ['agent/child/start', 'agent/child/end'];
  for await (const event of store.readRange(id, { fromSeq: 1, types })) {
    const { sessionId } = event.body as { sessionId: string };
    if (event.type === 'agent/child/start') {
      latest.set(sessionId, ended.length);
      ended.push(false);
    } else {
      const index = latest.get(sessionId);
      if (index !== undefined) ended[index] = true;
    }
  }
  return ended.includes(false);
}
