import { createHash } from 'node:crypto';
import { KeyedLock } from './internal/keyed-lock.js';

/** Result of {@link ReadStateTracker.check}. */
export type ReadStateCheck = 'ok' | 'never-read' | 'stale';

/**
 * Remembers a content hash of every file the agent read or wrote, so `write` and `edit` can
 * refuse to overwrite a file that changed on disk since (compare-and-swap), and serialises
 * mutations per real path (across every tracker in the process). One tracker lives per runtime; tools find it in
 * `context.services.readState`.
 */
export interface ReadStateTracker {
  /** Records what the agent has seen of `absolutePath`. */
  recordRead(absolutePath: string, content: Uint8Array | string): void;
  /** Records content the agent itself wrote, so its next change needs no re-read. */
  recordWrite(absolutePath: string, content: Uint8Array | string): void;
  /** Compares the current content (`undefined` when the file does not exist) with what the agent saw. */
  check(absolutePath: string, current: Uint8Array | string | undefined): ReadStateCheck;
  /** Forgets a path (for example after it was deleted). */
  forget(absolutePath: string): void;
  /** Runs `fn` while no other mutation of `absolutePath` runs. */
  withLock<T>(absolutePath: string, fn: () => Promise<T>): Promise<T>;
}

/** Key under which the runtime passes the tracker in `ToolExecutionContext.services`. */
export const READ_STATE_SERVICE = 'readState';

// One lock table for the whole process: two runtimes (two agents) editing the same file must
// serialise too, so the second one's compare-and-swap sees the first one's write.
const MUTATION_LOCKS = new KeyedLock();

function hashOf(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Creates an in-memory {@link ReadStateTracker}.
 *
 * @example
 * ```ts
 * const readState = createReadStateTracker();
 * readState.recordRead('/repo/a.ts', await readFile('/repo/a.ts'));
 * ```
 */
export function createReadStateTracker(): ReadStateTracker {
  const seen = new Map<string, string>();
  return {
    recordRead: (path, content) => {
      seen.set(path, hashOf(content));
    },
    recordWrite: (path, content) => {
      seen.set(path, hashOf(content));
    },
    check: (path, current) => {
      if (current === undefined) return 'ok';
      const known = seen.get(path);
      if (known === undefined) return 'never-read';
      return known === hashOf(current) ? 'ok' : 'stale';
    },
    forget: (path) => {
      seen.delete(path);
    },
    withLock: (path, fn) => MUTATION_LOCKS.run([path], fn),
  };
}
