import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Creates a fresh empty directory under the OS temp dir and returns its path. */
export function tmpDir(prefix = 'spine-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs `body` with a fresh temp directory and removes the directory afterwards, whatever happens. */
export async function withTmpDir<T>(body: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = tmpDir();
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
