// The JSONL store's snapshot file (`<id>.jsonl.snapshot`) and the byte anchor it gives readers:
// a first line `{"seq":N,"offset":B}` (B: where the line of seq N + 1 starts in the log), then the
// session log's opaque snapshot text. Written beside the log and renamed into place.

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
} from 'node:fs';
import { dirname } from 'node:path';
import type { StoredSnapshot } from '@spine/protocol';

/** A snapshot file's content: the stored snapshot and the byte offset just after its seq. */
export interface JsonlSnapshot extends StoredSnapshot {
  /** Byte offset in the log where the line of `seq + 1` starts (-1 when unknown). */
  offset: number;
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
  try {
    const meta = JSON.parse(text.slice(0, newline)) as { seq?: unknown; offset?: unknown };
    if (!Number.isSafeInteger(meta.seq) || !Number.isSafeInteger(meta.offset)) return undefined;
    return {
      seq: meta.seq as number,
      offset: meta.offset as number,
      data: text.slice(newline + 1),
    };
  } catch {
    return undefined;
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
    `${JSON.stringify({ seq: snapshot.seq, offset: snapshot.offset })}\n${snapshot.data}`,
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

/**
 * The anchor a snapshot gives for reading from `fromSeq`, after checking it against the log:
 * the line just before the offset must be the snapshot's seq. Falls back to the start of the
 * log when there is no usable snapshot (so a stale or hand-edited one costs a scan, never data).
 */
export function anchorFor(logPath: string, fromSeq: number): JsonlAnchor {
  const start: JsonlAnchor = { startOffset: 0, startSeq: 1 };
  const snapshot = readSnapshotFile(logPath);
  if (!snapshot || snapshot.offset <= 0 || snapshot.seq + 1 > fromSeq) return start;
  return lineEndsAt(logPath, snapshot.offset, snapshot.seq)
    ? { startOffset: snapshot.offset, startSeq: snapshot.seq + 1 }
    : start;
}

/** True when the log's line ending just before `offset` holds event `seq`. */
function lineEndsAt(logPath: string, offset: number, seq: number): boolean {
  const fd = openSync(logPath, 'r');
  try {
    if (fstatSync(fd).size < offset) return false;
    const length = Math.min(TAIL_BYTES, offset);
    const buffer = Buffer.allocUnsafe(length);
    if (readSync(fd, buffer, 0, length, offset - length) !== length) return false;
    if (buffer[length - 1] !== 10) return false;
    const previous = buffer.lastIndexOf(10, length - 2);
    if (previous < 0 && length < offset) return false;
    const prefix = `{"seq":${seq},`;
    return buffer.toString('utf8', previous + 1, previous + 1 + prefix.length) === prefix;
  } finally {
    closeSync(fd);
  }
}
