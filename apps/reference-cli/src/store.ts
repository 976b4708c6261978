import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
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

/**
 * The `provider/model` of the last recorded request of a stored JSONL session, found by reading
 * the file backwards (at most `maxBytes` from its end), so a session resumed on another provider
 * is resumed again on the one it last used. Undefined when no request is found in that span.
 */
export function readLastRequestModel(
  dir: string,
  id: string,
  maxBytes = 4 * 1024 * 1024,
): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, `${id}.jsonl`), 'r');
    let end = fstatSync(fd).size;
    const stop = Math.max(0, end - maxBytes);
    // Bytes of the line cut at the start of the previous chunk; a newline byte never occurs
    // inside a UTF-8 sequence, so splitting bytes on it is safe.
    let carry = Buffer.alloc(0);
    while (end > stop) {
      const start = Math.max(stop, end - 64 * 1024);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      const text = Buffer.concat([chunk, carry]);
      let whole = text;
      if (start > 0) {
        // The bytes before the first newline may be the end of a line that starts earlier.
        const newline = text.indexOf(0x0a);
        carry = newline === -1 ? text : text.subarray(0, newline);
        whole = newline === -1 ? Buffer.alloc(0) : text.subarray(newline + 1);
      }
      const lines = whole.toString('utf8').split('\n');
      for (let index = lines.length - 1; index >= 0; index--) {
        const model = requestModelOf(lines[index] as string);
        if (model !== undefined) return model;
      }
      end = start;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function requestModelOf(line: string): string | undefined {
  if (!line.includes('"request/header"')) return undefined;
  try {
    const event = JSON.parse(line) as SessionEvent<{ provider?: unknown; model?: unknown }>;
    const { provider, model } = event.body;
    if (event.type !== 'request/header') return undefined;
    return typeof provider === 'string' && typeof model === 'string' && provider && model
      ? `${provider}/${model}`
      : undefined;
  } catch {
    return undefined;
  }
}
