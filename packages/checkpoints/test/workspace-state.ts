// Test helper: a workspace's exact state (names as bytes, content, all 12 permission bits,
// link targets), for comparing what a restore put back with what was recorded.
import { promises as fs } from 'node:fs';

/** One entry: `f:<mode>:<hex content>`, `d:<mode>` or `l:<hex target>`, keyed by hex name. */
export type WorkspaceState = Map<string, string>;

/** Reads every entry under `root` (skipping names in `skip`, given as hex of the bytes). */
export async function workspaceState(
  root: string,
  skip: ReadonlySet<string> = new Set(),
): Promise<WorkspaceState> {
  const state: WorkspaceState = new Map();
  async function walk(folder: Buffer, prefix: Buffer): Promise<void> {
    for (const name of await fs.readdir(folder, { encoding: 'buffer' })) {
      const relative = prefix.length ? Buffer.concat([prefix, Buffer.from('/'), name]) : name;
      const key = relative.toString('hex');
      if (skip.has(key)) continue;
      const absolute = Buffer.concat([folder, Buffer.from('/'), name]);
      const stats = await fs.lstat(absolute);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isDirectory()) {
        state.set(key, `d:${mode}`);
        await walk(absolute, relative);
      } else if (stats.isSymbolicLink()) {
        state.set(
          key,
          `l:${(await fs.readlink(absolute, { encoding: 'buffer' })).toString('hex')}`,
        );
      } else state.set(key, `f:${mode}:${(await fs.readFile(absolute)).toString('hex')}`);
    }
  }
  await walk(Buffer.from(root), Buffer.alloc(0));
  return state;
}

/** `root/name` as bytes. */
export function under(root: string, name: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${root}/`), name]);
}
