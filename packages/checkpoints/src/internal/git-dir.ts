// The shadow store's git folder: made in a temporary place and renamed in, so a session never
// sees a half-made store (another session may be making it at the same time).

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { type GitPlace, runGit } from './git.js';

const exists = (path: string) =>
  fs.access(path).then(
    () => true,
    () => false,
  );

/**
 * Makes `place.gitDir` if it has no `HEAD` yet (atomic rename), with `attributes` as its
 * attributes file. An existing store's `info/exclude` is emptied: the size cap's patterns live in
 * each session's own exclude file, written fresh at each checkpoint (older stores appended here).
 */
export async function createGitDir(place: GitPlace, attributes: string): Promise<void> {
  if (await exists(join(place.gitDir, 'HEAD'))) {
    await fs.writeFile(join(place.gitDir, 'info', 'exclude'), '').catch(() => undefined);
    return;
  }
  const temporary = `${place.gitDir}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await runGit({ ...place, gitDir: temporary }, ['init', '-q']);
  await fs.mkdir(join(temporary, 'info'), { recursive: true });
  await fs.mkdir(join(temporary, 'refs', 'checkpoints'), { recursive: true });
  await fs.writeFile(join(temporary, 'info', 'attributes'), attributes);
  await fs.writeFile(join(temporary, 'info', 'exclude'), '');
  await fs.rename(temporary, place.gitDir).catch(async (error: unknown) => {
    await fs.rm(temporary, { recursive: true, force: true });
    // Another session made it first: use theirs.
    if (!(await exists(join(place.gitDir, 'HEAD')))) throw error;
  });
}
