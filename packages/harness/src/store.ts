import type { SessionEvent, SessionStore } from '@spine/protocol';
import { createJsonlStore } from '@spine/session-log';
import type { SpineConfig } from './config/schema.js';
import { SessionNotFoundError } from './errors.js';
import { postgresStoreFor, storeUrlOf } from './store-url.js';

/** The session store the configuration names: PostgreSQL with a store URL, else JSONL files in `sessionDir`. */
export function storeFor(
  config: Pick<SpineConfig, 'sessionDir' | 'fsync' | 'store'>,
): SessionStore {
  const url = storeUrlOf(config);
  if (url) return postgresStoreFor(url);
  return createJsonlStore({ dir: config.sessionDir, fsync: config.fsync });
}

/**
 * Reads every event of a stored session without taking its lock.
 *
 * @throws a {@link SessionNotFoundError} when the id is unknown.
 */
export async function readSessionEvents(
  store: SessionStore,
  id: string,
  dir: string,
): Promise<readonly SessionEvent[]> {
  if (!(await store.exists(id))) throw new SessionNotFoundError({ sessionId: id, dir });
  const opened = await store.open(id, { readOnly: true });
  try {
    return opened.events;
  } finally {
    await opened.close();
  }
}
