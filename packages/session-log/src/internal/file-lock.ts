import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { SessionLockedError } from '../errors.js';

/** Lock files this process holds, so a second writer in the same process is refused too. */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
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
 * Takes the single-writer lock `path` (a file holding the owner's pid). A lock left by a dead
 * pid is stale and taken over. Returns a function that releases it.
 *
 * @throws {SessionLockedError} when a live process (or this one) holds the lock.
 */
export function acquireFileLock(path: string, sessionId: string): () => void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
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
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = readPid(path);
    const stale =
      pid === undefined
        ? isOldEmptyLock(path)
        : pid === process.pid
          ? !held.has(path)
          : !isAlive(pid);
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
