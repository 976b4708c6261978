// What makes a file of a JSONL session folder a session: a name the store accepts as an id, and a
// first line that is the `session/header` event. The store, its peeks and its listing share both.
import type { SessionEvent, SessionHeaderBody } from '@spine/protocol';
import { readFirstLine } from './jsonl-read.js';

/** Session ids the JSONL store accepts: a safe file name, at most 200 characters. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * The header on the first line of the file at `path` (at most `maxBytes` are read), or undefined
 * when that line is missing, torn, not JSON or not a `session/header` event. Throws the file
 * system's error when the file cannot be opened or read.
 */
export function readHeaderLine(path: string, maxBytes?: number): SessionHeaderBody | undefined {
  const first = readFirstLine(path, maxBytes) as Partial<SessionEvent> | null | undefined;
  return first?.type === 'session/header' && typeof first.body === 'object' && first.body !== null
    ? (first.body as SessionHeaderBody)
    : undefined;
}
