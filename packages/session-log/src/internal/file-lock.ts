import { SessionLockedError } from '../errors.js';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from './fs.js';
import { storeFailure } from './fs-errors.js';
import { isAlive, startTimeOf } from './process.js';

/** Lock files this process holds, so a second writer in the same process is refused too. */
const held = new Set<string>();

/** The lock file's owner: `<pid> [<start time>]`. */
function readOwner(path: string): { pid: number; startTime: string | undefined } | undefined {
  try {
    const [pidText, startTime] = readFileSync(path, 'utf8').trim().split(/\s+/);
    const pid = Number.parseInt(pidText ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? { pid, startTime } : undefined;
  } catch {
    return undefined;
  }
}

function readPid(path: string): number | undefined {
  return readOwner(path)?.pid;
}

/** A lock file without a pid is being written; it is stale only when a writer died mid-create. */
function isOldEmptyLock(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > 5_000;
  } catch {
    return true;
  }
}

/**
 * Takes the single-writer lock `path` (a file holding the owner's pid and start time). A lock
 * left by a dead pid, or by a pid now reused by another process, is stale and taken over. Returns a function that releases it.
 * A lock file the file system refuses to create (EACCES, EROFS…) throws a `StoreUnavailableError`
 * saying that `action` (e.g. `open session a in dir`) could not be done.
 *
 * @throws a {@link SessionLockedError} when a live process (or this one) holds the lock.
 */
export function acquireFileLock(path: string, sessionId: string, action: string): () => void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        const startTime = startTimeOf(process.pid);
        writeSync(
          fd,
          startTime === undefined ? `${process.pid}\n` : `${process.pid} ${startTime}\n`,
        );
      } finally {
        closeSync(fd);
      }
      held.add(path);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(path);
        try {
          if (readPid(path) === process.pid) unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw storeFailure(error, action);
      }
    }
    const owner = readOwner(path);
    const pid = owner?.pid;
    const stale =
      owner === undefined
        ? isOldEmptyLock(path)
        : owner.pid === process.pid
          ? !held.has(path)
          : !isAlive(owner.pid, owner.startTime);
    if (!stale)
      throw new SessionLockedError({ sessionId, path, ...(pid === undefined ? {} : { pid }) });
    try {
      unlinkSync(path);
    } catch {
      // Another process removed the stale lock first; retry the create.
    }
  }
  throw new SessionLockedError({ sessionId, path });
}
