import { join } from 'node:path';
import type { SessionSummary } from '@spine/protocol';
import { readdirSync, statSync } from './internal/fs.js';
import { pathExists, withStoreFailures } from './internal/fs-errors.js';
import { readHeaderLine, SAFE_ID } from './internal/jsonl-files.js';

// The sessions of a folder kept by the JSONL store, listed so that one bad file cannot hide the
// others: a `*.jsonl` file that cannot be read, is not a session log, or has a name the store does
// not accept becomes a problem row saying why, never a thrown error.

/**
 * Why a `*.jsonl` file of the folder is not listed as a session: `invalid-id`, its name is not a
 * session id the store accepts (letters, digits, `.`, `_`, `-`; no command can open it);
 * `directory`, it is a directory; `unreadable`, the file system refused to stat, open or read it
 * (see `code`); `empty`, it has no bytes yet; `not-a-session`, its first line is not a
 * `session/header` event (not JSON, torn, or another kind of file).
 */
export type JsonlFileProblemReason =
  | 'invalid-id'
  | 'directory'
  | 'unreadable'
  | 'empty'
  | 'not-a-session';

/** A `*.jsonl` file of the folder that {@link listJsonlSessions} cannot list as a session. */
export interface JsonlFileProblem {
  /** The file's name without `.jsonl` (raw, as the folder has it: escape it before printing). */
  id: string;
  /** The file's path (`dir` joined with the file name). */
  path: string;
  /** Why it is not a session. */
  reason: JsonlFileProblemReason;
  /** With `unreadable`: the operating system's error code, e.g. `EACCES` or `ELOOP`. */
  code?: string;
}

/** Options of {@link listJsonlSessions}. */
export interface ListJsonlSessionsOptions {
  /** Read headers only until this many sessions are found (default: all of them). */
  limit?: number;
}

/** What {@link listJsonlSessions} returns. */
export interface ListJsonlSessionsResult {
  /** The sessions whose header could be read, newest (last modified) first. */
  summaries: SessionSummary[];
  /** The files that are not openable sessions, newest first. */
  problems: JsonlFileProblem[];
}

interface Candidate {
  id: string;
  path: string;
  size: number;
  mtime: Date;
}

/**
 * Lists the sessions a JSONL store keeps in folder `dir` from their header lines, newest first,
 * and the `*.jsonl` files there that cannot be opened as sessions, each with the reason. Headers
 * are read newest first only until `limit` sessions are found, so the problems found among the
 * files not reached are not reported; a name that is not a session id, a directory and a file
 * that cannot be stat'ed are always reported. A file removed while listing is left out. A missing
 * folder lists nothing.
 *
 * Contract: never throws for one file. A folder that cannot be read, or whose path the file
 * system refuses to search (EACCES, ELOOP…), throws a `StoreUnavailableError` (code
 * `STORE_UNAVAILABLE`) with the operating system's code in `systemCode` and its error as `cause`;
 * only ENOENT and ENOTDIR count as a missing folder.
 *
 * @example
 * ```ts
 * const { summaries, problems } = listJsonlSessions('.spine/sessions', { limit: 20 });
 * for (const problem of problems) console.warn(`${problem.id}.jsonl: ${problem.reason}`);
 * ```
 */
export function listJsonlSessions(
  dir: string,
  options: ListJsonlSessionsOptions = {},
): ListJsonlSessionsResult {
  const action = `list the sessions in ${dir}`;
  if (!pathExists(dir, action)) return { summaries: [], problems: [] };
  const files: Candidate[] = [];
  const problems: Array<JsonlFileProblem & { mtime: number }> = [];
  // Stat every file, then read headers newest first only until the limit is reached.
  for (const name of withStoreFailures(action, () => readdirSync(dir))) {
    if (!name.endsWith('.jsonl')) continue;
    const file = { id: name.slice(0, -'.jsonl'.length), path: join(dir, name) };
    try {
      const stat = statSync(file.path);
      const mtime = stat.mtimeMs;
      if (!SAFE_ID.test(file.id)) problems.push({ ...file, reason: 'invalid-id', mtime });
      else if (stat.isDirectory()) problems.push({ ...file, reason: 'directory', mtime });
      else if (stat.isFile()) files.push({ ...file, size: stat.size, mtime: stat.mtime });
    } catch (error) {
      // Removed while listing: left out; anything else is reported.
      if (codeOf(error) !== 'ENOENT') problems.push({ ...unreadable(file, error), mtime: 0 });
    }
  }
  files.sort((a, b) => b.mtime.getTime() - a.mtime.getTime());
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const summaries: SessionSummary[] = [];
  for (const file of files) {
    if (summaries.length >= limit) break;
    const { id, path, size } = file;
    const mtime = file.mtime.getTime();
    try {
      const header = readHeaderLine(path);
      if (header)
        summaries.push({ id, header, sizeBytes: size, updatedAt: file.mtime.toISOString() });
      else problems.push({ id, path, reason: size === 0 ? 'empty' : 'not-a-session', mtime });
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') problems.push({ ...unreadable(file, error), mtime });
    }
  }
  problems.sort((a, b) => b.mtime - a.mtime);
  return { summaries, problems: problems.map(({ mtime: _, ...problem }) => problem) };
}

function codeOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The problem row of a file the file system refused, with the error's code when it has one. */
function unreadable(file: { id: string; path: string }, error: unknown): JsonlFileProblem {
  const code = codeOf(error);
  return { id: file.id, path: file.path, reason: 'unreadable', ...(code ? { code } : {}) };
}
