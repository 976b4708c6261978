import { join } from 'node:path';
import type { SessionEvent, SessionHeaderBody } from '@spine/protocol';
import { closeSync, fstatSync, openSync, readSync } from './internal/fs.js';
import { readHeaderLine, SAFE_ID } from './internal/jsonl-files.js';

// Cheap looks into a stored JSONL session file without opening the session (no lock, no full
// read): its header from the first line, or the last event of a type read from the end.

function fileOf(dir: string, sessionId: string): string | undefined {
  return SAFE_ID.test(sessionId) ? join(dir, `${sessionId}.jsonl`) : undefined;
}

/**
 * The header of a session stored by {@link createJsonlStore} in `dir`, read from its first line
 * only (cheap on any size). Undefined when the file is missing or cannot be read, the id is not a
 * valid session id, or the first line is not a `session/header` event.
 */
export function readJsonlHeader(dir: string, sessionId: string): SessionHeaderBody | undefined {
  const path = fileOf(dir, sessionId);
  if (!path) return undefined;
  try {
    return readHeaderLine(path, 64 * 1024);
  } catch {
    return undefined;
  }
}

/** Options of {@link readLastJsonlEvent}. */
export interface LastJsonlEventOptions {
  /** The event type looked for (`request/header`). */
  type: string;
  /** Only an event this accepts counts; an earlier one is looked for otherwise. */
  where?: (event: SessionEvent) => boolean;
  /** Read at most this many bytes from the end of the file (default 4 MiB). */
  maxBytes?: number;
}

/**
 * The last event of `options.type` in a session stored by {@link createJsonlStore}, found by
 * reading the file backwards (at most `maxBytes` from its end), e.g. the last `request/header` to
 * learn which model a session last used. A torn or unparseable line is skipped. Undefined when
 * none is found in that span, the file is missing or the id is not a valid session id.
 *
 * @example
 * ```ts
 * const last = readLastJsonlEvent('.spine/sessions', id, { type: 'request/header' });
 * ```
 */
export function readLastJsonlEvent(
  dir: string,
  sessionId: string,
  options: LastJsonlEventOptions,
): SessionEvent | undefined {
  const path = fileOf(dir, sessionId);
  if (!path) return undefined;
  const marker = JSON.stringify(options.type);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    let end = fstatSync(fd).size;
    const stop = Math.max(0, end - (options.maxBytes ?? 4 * 1024 * 1024));
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
        const line = lines[index] as string;
        if (!line.includes(marker)) continue;
        const event = parseEvent(line);
        if (event?.type === options.type && (options.where?.(event) ?? true)) return event;
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

function parseEvent(line: string): SessionEvent | undefined {
  try {
    const event = JSON.parse(line) as SessionEvent;
    return typeof event === 'object' && event !== null && typeof event.type === 'string'
      ? event
      : undefined;
  } catch {
    return undefined;
  }
}
