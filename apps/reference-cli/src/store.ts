import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent, SessionHeaderBody, SessionStore } from '@spine/protocol';
import { createJsonlStore } from '@spine/session-log';
import type { SpineConfig } from './config/schema.js';
import { SessionNotFoundError } from './errors.js';

/** The session store the configuration names (JSONL files in `sessionDir`). */
export function storeFor(config: Pick<SpineConfig, 'sessionDir' | 'fsync'>): SessionStore {
  return createJsonlStore({ dir: config.sessionDir, fsync: config.fsync });
}

/**
 * Reads every event of a stored session without taking its lock.
 *
 * @throws {SessionNotFoundError} when the id is unknown.
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

/**
 * The header of a stored JSONL session, read from its first line only (cheap on any size).
 * Returns undefined when the file is missing or its first line is not a header.
 */
export function readStoredHeader(dir: string, id: string): SessionHeaderBody | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, `${id}.jsonl`), 'r');
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const line = buffer.subarray(0, read).toString('utf8').split('\n')[0] ?? '';
    const event = JSON.parse(line) as SessionEvent<SessionHeaderBody>;
    return event.type === 'session/header' ? event.body : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
