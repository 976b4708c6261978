import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A new session id that sorts by time and is a safe file name: `20261130-093412-a1b2c3`. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * Per-session figures kept beside the log so `spine sessions` can show cost without
 * reading whole logs. The log stays the source of truth; this file is a cache that
 * `spine show` can always recompute.
 */
export interface SessionIndexEntry {
  /** Total cost so far, in USD, when the provider's prices are known. */
  costUsd?: number;
  /** Prompt + output tokens so far. */
  tokens: number;
  /** Turns run so far. */
  turns: number;
  /** ISO time of the last update. */
  updatedAt: string;
  /** `provider/model` of the last recorded request (a session may switch models). */
  model?: string;
  /** The latest `session/title` recorded (what `spine sessions` shows). */
  title?: string;
}

function indexPath(dir: string, id: string): string {
  return join(dir, '.spine-index', `${encodeURIComponent(id)}.json`);
}

/** Writes (atomically) the index entry of a session. */
export function writeSessionIndex(dir: string, id: string, entry: SessionIndexEntry): void {
  const path = indexPath(dir, id);
  mkdirSync(join(dir, '.spine-index'), { recursive: true });
  writeFileSync(`${path}.tmp`, JSON.stringify(entry));
  renameSync(`${path}.tmp`, path);
}

/** Reads the index entry of a session, if one was written. */
export function readSessionIndex(dir: string, id: string): SessionIndexEntry | undefined {
  try {
    return JSON.parse(readFileSync(indexPath(dir, id), 'utf8')) as SessionIndexEntry;
  } catch {
    return undefined;
  }
}
