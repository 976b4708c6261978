import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { SessionEvent } from '@spine/protocol';
import { SessionCorruptError } from '../errors.js';
import { compactEvent, structuralProblem } from './event-check.js';

/** What reading a JSONL session file found. */
export interface JsonlReadResult {
  /** The committed events, seq 1..n. */
  events: SessionEvent[];
  /** File size in bytes. */
  size: number;
  /** Bytes holding committed events; anything after is a torn last write. */
  validBytes: number;
}

const CHUNK_BYTES = 4 * 1024 * 1024;
const NEWLINE = 10;

/**
 * Reads a JSONL session file in chunks (never holding the raw text and the parsed events at
 * once), checking each event's structure and seq. A last line that is cut short or unparseable
 * is reported through `validBytes` (a torn write); any other damage throws.
 *
 * @throws {SessionCorruptError} naming the file and line.
 */
export function readJsonlEvents(path: string): JsonlReadResult {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const events: SessionEvent[] = [];
    const types = new Map<string, string>();
    let position = 0;
    let consumed = 0;
    let line = 0;
    let pending: Buffer | undefined;
    let bad: { line: number; start: number; reason: string } | undefined;
    while (position < size) {
      // The partial line left from the previous chunk goes first, then the next read: only that
      // short tail is copied, never the whole chunk.
      const carried = pending?.length ?? 0;
      const chunk = Buffer.allocUnsafe(carried + Math.min(CHUNK_BYTES, size - position));
      if (pending) pending.copy(chunk, 0);
      const read = readSync(fd, chunk, carried, chunk.length - carried, position);
      if (read === 0) break;
      position += read;
      const data = chunk.subarray(0, carried + read);
      const last = data.lastIndexOf(NEWLINE);
      if (last < 0) {
        pending = data;
        continue;
      }
      pending = last + 1 < data.length ? Buffer.from(data.subarray(last + 1)) : undefined;
      const text = data.toString('utf8', 0, last);
      let start = 0;
      for (;;) {
        const newline = text.indexOf('\n', start);
        const end = newline < 0 ? text.length : newline;
        line++;
        if (end > start) {
          if (bad) {
            throw new SessionCorruptError({ file: path, line: bad.line, reason: bad.reason });
          }
          let value: unknown;
          let parsed = true;
          try {
            value = JSON.parse(text.slice(start, end));
          } catch (error) {
            parsed = false;
            const lineStart = consumed + Buffer.byteLength(text.slice(0, start));
            bad = {
              line,
              start: lineStart,
              reason: `not valid JSON (${(error as Error).message})`,
            };
          }
          if (parsed) {
            const problem = structuralProblem(value, events.length + 1);
            if (problem) throw new SessionCorruptError({ file: path, line, reason: problem });
            compactEvent(value as SessionEvent, types);
            events.push(value as SessionEvent);
          }
        }
        if (newline < 0) break;
        start = newline + 1;
      }
      consumed += last + 1;
    }
    let validBytes = consumed;
    if (bad) validBytes = bad.start;
    if (events.length === 0) {
      throw new SessionCorruptError({
        file: path,
        line: bad?.line ?? 1,
        reason: 'no complete session/header: the file is empty or not a Spine session',
      });
    }
    return { events, size, validBytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads only the first line of a file (the header), in small reads: never the whole file.
 * Returns undefined when the file has no complete, parseable first line.
 */
export function readFirstLine(path: string, maxBytes = 1024 * 1024): unknown {
  const fd = openSync(path, 'r');
  try {
    const parts: Buffer[] = [];
    let position = 0;
    let step = 16 * 1024;
    while (position < maxBytes) {
      const chunk = Buffer.allocUnsafe(step);
      const read = readSync(fd, chunk, 0, step, position);
      if (read === 0) return undefined;
      const newline = chunk.subarray(0, read).indexOf(NEWLINE);
      if (newline >= 0) {
        parts.push(chunk.subarray(0, newline));
        try {
          return JSON.parse(Buffer.concat(parts).toString('utf8'));
        } catch {
          return undefined;
        }
      }
      parts.push(chunk.subarray(0, read));
      position += read;
      step = Math.min(step * 4, 256 * 1024);
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
