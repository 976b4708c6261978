// The sessions of a JSONL session folder for `spine sessions` and `spine serve`, listed so that one
// bad file cannot hide the others: a file that cannot be read (no permission, a directory, not a
// session log) or whose name no command accepts becomes a problem row saying why, not a failure.
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionHeaderBody, SessionSummary } from '@spine/protocol';

/** Session ids every command accepts (the JSONL store's rule). */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** A `*.jsonl` file of the folder that is listed but cannot be opened as a session. */
export interface SessionFileProblem {
  /** The file name (raw: escape it before printing). */
  name: string;
  /** Why it cannot be opened, e.g. "could not be read: permission denied (EACCES)". */
  reason: string;
}

/** What {@link listJsonlSessions} returns. */
export interface JsonlListing {
  /** The readable sessions, newest first. */
  summaries: SessionSummary[];
  /** The files that are not openable sessions, newest first. */
  problems: SessionFileProblem[];
}

const HEADER_BYTES = 64 * 1024;

/** Why a file system call failed, as a short phrase with its code. */
export function systemReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const phrases: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'it is a directory',
    ENOENT: 'it was removed',
    ELOOP: 'too many symbolic links',
  };
  if (typeof code === 'string') return `${phrases[code] ?? 'the file system refused'} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/** The header on the first line of `path`, or a reason it is not one. */
function readHeader(path: string): SessionHeaderBody | string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const read = readSync(fd, buffer, 0, HEADER_BYTES, 0);
    if (read === 0) return 'empty file: not a session log yet';
    const end = buffer.subarray(0, read).indexOf(10);
    const line = buffer.subarray(0, end === -1 ? read : end).toString('utf8');
    try {
      const event = JSON.parse(line) as { type?: unknown; body?: unknown };
      if (event?.type === 'session/header' && typeof event.body === 'object' && event.body)
        return event.body as SessionHeaderBody;
    } catch {
      // Not JSON: reported below.
    }
    return 'not a session log: its first line is not a session header';
  } finally {
    closeSync(fd);
  }
}

/**
 * Lists the sessions of folder `dir`, newest first, at most `limit` of them, and the `*.jsonl`
 * files that cannot be opened as sessions with the reason. Never throws for one file.
 */
export function listJsonlSessions(dir: string, options: { limit?: number } = {}): JsonlListing {
  if (!existsSync(dir)) return { summaries: [], problems: [] };
  const files: Array<{ name: string; size: number; mtime: Date }> = [];
  const problems: Array<SessionFileProblem & { mtime: number }> = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    const id = name.slice(0, -'.jsonl'.length);
    try {
      const stat = statSync(join(dir, name));
      if (!SESSION_ID.test(id))
        problems.push({
          name,
          reason: 'not a valid session id (letters, digits, . _ - only): no command opens it',
          mtime: stat.mtimeMs,
        });
      else if (stat.isDirectory())
        problems.push({ name, reason: 'a directory, not a session log', mtime: stat.mtimeMs });
      else if (stat.isFile()) files.push({ name, size: stat.size, mtime: stat.mtime });
    } catch (error) {
      // Removed while listing: skip it; anything else is reported.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        problems.push({ name, reason: `could not be read: ${systemReason(error)}`, mtime: 0 });
    }
  }
  files.sort((a, b) => b.mtime.getTime() - a.mtime.getTime());
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const summaries: SessionSummary[] = [];
  for (const file of files) {
    if (summaries.length >= limit) break;
    let header: SessionHeaderBody | string;
    try {
      header = readHeader(join(dir, file.name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      header = `could not be read: ${systemReason(error)}`;
    }
    if (typeof header === 'string') {
      problems.push({ name: file.name, reason: header, mtime: file.mtime.getTime() });
      continue;
    }
    summaries.push({
      id: file.name.slice(0, -'.jsonl'.length),
      header,
      sizeBytes: file.size,
      updatedAt: file.mtime.toISOString(),
    });
  }
  problems.sort((a, b) => b.mtime - a.mtime);
  return { summaries, problems: problems.map(({ name, reason }) => ({ name, reason })) };
}
