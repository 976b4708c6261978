// The JSONL store's snapshot file (`<id>.jsonl.snapshot`) and the byte anchor it gives readers:
// a first line `{"seq":N,"offset":B}` (B: where the line of seq N + 1 starts in the log), then the
// session log's opaque snapshot text. Written beside the log and renamed into place.

import { dirname } from 'node:path';
import type { StoredSnapshot } from '@spine/protocol';
import { chainOf } from './chain.js';
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from './fs.js';

/** A snapshot file's content: the stored snapshot and the byte offset just after its seq. */
export interface JsonlSnapshot extends StoredSnapshot {
  /** Byte offset in the log where the line of `seq + 1` starts (-1 when unknown). */
  offset: number;
  /** The chain value of the line of `seq`, when the log is chained. */
  chain?: string;
}

/** Where to start scanning a log: a line start and the seq of the line there. */
export interface JsonlAnchor {
  /** Byte offset of a line start. */
  startOffset: number;
  /** The seq of the event on that line. */
  startSeq: number;
}

/** The snapshot file of the log at `logPath`. */
export function snapshotPathOf(logPath: string): string {
  return `${logPath}.snapshot`;
}

/** Reads a snapshot file; undefined when it is missing or its first line is malformed. */
export function readSnapshotFile(logPath: string): JsonlSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(snapshotPathOf(logPath), 'utf8');
  } catch {
    return undefined;
  }
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  const meta = parseMeta(text.slice(0, newline));
  return meta && { ...meta, data: text.slice(newline + 1) };
}

/**
 * Reads a snapshot file's meta line and the first `lines` lines of the snapshot text after it
 * (each with its newline), in growing reads: never the rest of the file. Undefined when the file
 * is missing or its meta line is malformed; fewer lines when the file ends first (torn).
 */
export function readSnapshotHead(logPath: string, lines: number): JsonlSnapshot | undefined {
  let fd: number;
  try {
    fd = openSync(snapshotPathOf(logPath), 'r');
  } catch {
    return undefined;
  }
  try {
    let buffer = Buffer.allocUnsafe(64 * 1024);
    let length = 0;
    let scanned = 0;
    let found = 0;
    let end = -1;
    while (end < 0) {
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 4);
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) {
        end = length;
        break;
      }
      length += read;
      for (;;) {
        const newline = buffer.indexOf(10, scanned);
        if (newline < 0 || newline >= length) {
          scanned = length;
          break;
        }
        scanned = newline + 1;
        if (++found === lines + 1) {
          end = scanned;
          break;
        }
      }
    }
    const text = buffer.toString('utf8', 0, end);
    const newline = text.indexOf('\n');
    if (newline < 0) return undefined;
    const meta = parseMeta(text.slice(0, newline));
    return meta && { ...meta, data: text.slice(newline + 1) };
  } finally {
    closeSync(fd);
  }
}

function parseMeta(line: string): Omit<JsonlSnapshot, 'data'> | undefined {
  try {
    const meta = JSON.parse(line) as { seq?: unknown; offset?: unknown; chain?: unknown };
    if (!Number.isSafeInteger(meta.seq) || !Number.isSafeInteger(meta.offset)) return undefined;
    return {
      seq: meta.seq as number,
      offset: meta.offset as number,
      chain: typeof meta.chain === 'string' ? meta.chain : undefined,
    };
  } catch {
    return undefined;
  }
}

/** Reads only a snapshot file's first line (seq, offset, chain value), not the snapshot itself. */
export function readSnapshotMeta(logPath: string): Omit<JsonlSnapshot, 'data'> | undefined {
  let fd: number;
  try {
    fd = openSync(snapshotPathOf(logPath), 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.allocUnsafe(256);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const newline = buffer.subarray(0, read).indexOf(10);
    return newline < 0 ? undefined : parseMeta(buffer.toString('utf8', 0, newline));
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces the snapshot file atomically: written to a temporary file beside it, synced (unless
 * `sync` is false), renamed into place, and the directory synced.
 */
export function writeSnapshotFile(logPath: string, snapshot: JsonlSnapshot, sync: boolean): void {
  const target = snapshotPathOf(logPath);
  // One writer holds the lock, so one temporary name suffices; a kill leaves it to be overwritten.
  const temporary = `${target}.tmp`;
  const bytes = Buffer.from(
    `${JSON.stringify({ seq: snapshot.seq, offset: snapshot.offset, chain: snapshot.chain })}\n${snapshot.data}`,
    'utf8',
  );
  try {
    const fd = openSync(temporary, 'w');
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
      if (sync) fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  if (sync) {
    const directory = openSync(dirname(target), 'r');
    try {
      fdatasyncSync(directory);
    } finally {
      closeSync(directory);
    }
  }
}

const TAIL_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * The anchor a snapshot gives for reading from `fromSeq`, after checking it against the log: the
 * line just before the snapshot's offset must be the snapshot's seq. From `fromSeq` equal to
 * that seq the read starts at its line, after it at the offset. Falls back to the start of the
 * log when there is no usable snapshot (so a stale or hand-edited one costs a scan, never data).
 */
export function anchorFor(logPath: string, fromSeq: number): JsonlAnchor {
  const start: JsonlAnchor = { startOffset: 0, startSeq: 1 };
  const snapshot = readSnapshotMeta(logPath);
  if (!snapshot || snapshot.offset <= 0 || snapshot.seq > fromSeq) return start;
  const lineStart = lineStartBefore(logPath, snapshot.offset, snapshot.seq);
  if (lineStart < 0) return start;
  return fromSeq === snapshot.seq
    ? { startOffset: lineStart, startSeq: snapshot.seq }
    : { startOffset: snapshot.offset, startSeq: snapshot.seq + 1 };
}

/** The chain value of the line ending just before `offset` ('' when it carries none). */
export function chainBefore(logPath: string, offset: number): string {
  if (offset <= 0) return '';
  const fd = openSync(logPath, 'r');
  try {
    let end = offset - 1;
    while (end > 0 && offset - end <= MAX_LINE_BYTES) {
      const length = Math.min(TAIL_BYTES, end);
      const buffer = Buffer.allocUnsafe(length);
      if (readSync(fd, buffer, 0, length, end - length) !== length) return '';
      const newline = buffer.lastIndexOf(10, length - 1);
      const lineStart = newline >= 0 ? end - length + newline + 1 : end === length ? 0 : -1;
      if (lineStart >= 0) {
        const line = Buffer.allocUnsafe(offset - 1 - lineStart);
        readSync(fd, line, 0, line.length, lineStart);
        return chainOf(line)?.head ?? '';
      }
      end -= length;
    }
    return '';
  } finally {
    closeSync(fd);
  }
}

/**
 * Where the line ending just before `offset` starts, when that line holds event `seq`; -1 when
 * it does not (or is longer than 64 MiB). Reads backwards from `offset`, never the whole log.
 */
function lineStartBefore(logPath: string, offset: number, seq: number): number {
  const fd = openSync(logPath, 'r');
  try {
    if (fstatSync(fd).size < offset) return -1;
    const last = Buffer.allocUnsafe(1);
    if (readSync(fd, last, 0, 1, offset - 1) !== 1 || last[0] !== 10) return -1;
    let end = offset - 1;
    let lineStart = -1;
    while (end > 0 && offset - end <= MAX_LINE_BYTES) {
      const length = Math.min(TAIL_BYTES, end);
      const buffer = Buffer.allocUnsafe(length);
      if (readSync(fd, buffer, 0, length, end - length) !== length) return -1;
      const newline = buffer.lastIndexOf(10);
      if (newline >= 0) {
        lineStart = end - length + newline + 1;
        break;
      }
      end -= length;
    }
    if (end === 0) lineStart = 0;
    if (lineStart < 0) return -1;
    const prefix = Buffer.from(`{"seq":${seq},`);
    const head = Buffer.allocUnsafe(prefix.length);
    if (readSync(fd, head, 0, prefix.length, lineStart) !== prefix.length) return -1;
    return head.equals(prefix) ? lineStart : -1;
  } finally {
    closeSync(fd);
  }
}
