// How the JSONL store reports the file system. Only ENOENT, and ENOTDIR (a part of the folder's
// path is a file, so nothing can be stored under it), mean "not there". Any other failure
// (EACCES, EPERM, ELOOP, EIO, ENOSPC…) becomes a StoreUnavailableError naming the path and the
// code, with the original error as its cause: a session the process cannot see is never reported
// missing, so "open, else create" is not sent to create over it. The SQLite store reports the
// failures of its database file the same way (`databaseFailure`).
import { SpineError } from '@spine/protocol/core';
import { StoreUnavailableError } from '../errors.js';
import { statSync } from './fs.js';

/** Node's codes of system errors (`EACCES`); its own `ERR_*` codes have an underscore. */
const SYSTEM_CODE = /^E[A-Z0-9]+$/;

/** What to do about each code; the default covers EIO and anything rarer. */
const ADVICE: Readonly<Record<string, string>> = {
  EACCES:
    'give this user read, write and search permission on the store folder and its files, or use another store dir',
  EPERM:
    'give this user read, write and search permission on the store folder and its files (and check for immutable files), or use another store dir',
  EROFS: 'the file system is mounted read-only; use a store dir on a writable one',
  ENOSPC: 'the disk is full; free space, then open the session again',
  EDQUOT: "the user's disk quota is used up; free space, then open the session again",
  ELOOP: 'a symbolic link on the path loops; remove it or point it at a real file',
  EISDIR: 'a folder sits where a file belongs; move it away or use another store dir',
  ENOTDIR: 'a file sits where a folder belongs; move it away or use another store dir',
  EEXIST: 'a file sits where a folder belongs; move it away or use another store dir',
  EMFILE: 'this process has too many open files; close sessions or raise the limit (ulimit -n)',
  ENFILE: 'the system has too many open files; close sessions or raise the limit',
};

/** The operating system's code of a file-system error (`EACCES`); undefined for anything else. */
export function systemCodeOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || SpineError.isInstance(error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && SYSTEM_CODE.test(code) ? code : undefined;
}

/** True when `error` says the path is not there: ENOENT, or ENOTDIR (a parent is a file). */
export function isAbsent(error: unknown): boolean {
  const code = systemCodeOf(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * `error` as the store reports it: a file-system error becomes a {@link StoreUnavailableError}
 * saying what could not be done (`action`, e.g. `open session a in dir`), on which path (the
 * error's own, else `path`: a write to an open file names none), the code and what to do; a
 * Spine error or any other value is returned as it is.
 */
export function storeFailure(error: unknown, action: string, path?: string): unknown {
  const systemCode = systemCodeOf(error);
  if (systemCode === undefined) return error;
  const system = error as NodeJS.ErrnoException;
  // Node's message reads `EACCES: permission denied, open '/path'`: keep the words in the middle.
  const words = /^E[A-Z0-9]+: ([^,]+)/.exec(system.message)?.[1];
  path = typeof system.path === 'string' ? system.path : path;
  const call = system.syscall ? `${system.syscall} ` : '';
  const where = path === undefined ? '' : ` ${call}${path} failed with`;
  const advice = ADVICE[systemCode] ?? 'check the disk and the path, then try again';
  return new StoreUnavailableError({
    message: `Cannot ${action}:${where} ${systemCode}${words ? ` (${words})` : ''}; ${advice}`,
    cause: error,
    ...(path === undefined ? {} : { path }),
    systemCode,
  });
}

/**
 * Whether anything is at `path` (following symbolic links). Absent only for ENOENT or ENOTDIR;
 * any other failure throws a {@link StoreUnavailableError} (see {@link storeFailure}).
 */
export function pathExists(path: string, action: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    if (isAbsent(error)) return false;
    throw storeFailure(error, action);
  }
}

/** Iterates `items`, reporting a file-system error thrown on the way as {@link storeFailure} does. */
export function* reportingFailures<T>(items: Iterable<T>, action: string): Generator<T> {
  try {
    yield* items;
  } catch (error) {
    throw storeFailure(error, action);
  }
}

/** Runs `work`, reporting a file-system error it throws as {@link storeFailure} does. */
export function withStoreFailures<T>(action: string, work: () => T, path?: string): T {
  try {
    return work();
  } catch (error) {
    throw storeFailure(error, action, path);
  }
}

/** SQLite's codes for a database file the file system refused (open, write, disk full, I/O). */
const SQLITE_FILE_CODE = /^SQLITE_(CANTOPEN|READONLY|IOERR|FULL|PERM)/;

/** What to do about each SQLite code (by prefix). */
const SQLITE_ADVICE: ReadonlyArray<readonly [string, string]> = [
  [
    'SQLITE_CANTOPEN',
    'make sure this user may read, write and search its folder, or pass another path',
  ],
  [
    'SQLITE_READONLY',
    'give this user write permission on the database file and its folder (its -wal and -shm files sit beside it), or pass another path',
  ],
  ['SQLITE_FULL', 'the disk is full; free space, then open the session again'],
  ['SQLITE_IOERR', 'check the disk and the path, then open the session again'],
];

/**
 * `error` as the SQLite store reports it: a failure of the database file (SQLite's CANTOPEN,
 * READONLY, IOERR, FULL or PERM, or better-sqlite3's missing folder) becomes a
 * {@link StoreUnavailableError} naming the database and SQLite's code; anything else (a Spine
 * error, a constraint) is returned as it is.
 */
export function databaseFailure(error: unknown, action: string, path: string): unknown {
  if (!(error instanceof Error) || SpineError.isInstance(error)) return error;
  const code = (error as { code?: unknown }).code;
  const sqliteCode = typeof code === 'string' && SQLITE_FILE_CODE.test(code) ? code : undefined;
  // better-sqlite3 checks the folder itself and throws a TypeError without a code.
  const noFolder = error instanceof TypeError && /directory does not exist/.test(error.message);
  if (sqliteCode === undefined && !noFolder) return error;
  const advice = noFolder
    ? 'create the folder first, or pass another path'
    : (SQLITE_ADVICE.find(([prefix]) => sqliteCode?.startsWith(prefix))?.[1] ??
      'check the database file and its folder, then try again');
  const what = noFolder
    ? 'is in a folder that does not exist'
    : `failed with ${sqliteCode} (${error.message})`;
  return new StoreUnavailableError({
    message: `Cannot ${action}: the SQLite database ${path} ${what}; ${advice}`,
    cause: error,
    path,
    ...(sqliteCode === undefined ? {} : { systemCode: sqliteCode }),
  });
}
