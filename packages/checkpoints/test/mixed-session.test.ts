// A session of mixed file edits and shell commands on a real workspace (create, delete, rename,
// chmod, binary files, a symbolic link, a large ignored node_modules): a checkpoint before every
// step, then a rewind to every step in shuffled order must leave each file byte- and
// mode-identical to that step, and the ignored folder untouched.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitCheckpointStore } from '../src/index.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
});

/** path → "kind mode sha256" (links: their target) for every file under `folder`. */
async function manifest(
  folder: string,
  skip: (path: string) => boolean,
): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  async function visit(relative: string): Promise<void> {
    for (const entry of await fs.readdir(join(folder, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (skip(path)) continue;
      const absolute = join(folder, path);
      const stats = await fs.lstat(absolute);
      if (stats.isDirectory()) await visit(path);
      else if (stats.isSymbolicLink()) entries.set(path, `link ${await fs.readlink(absolute)}`);
      else {
        const hash = createHash('sha256')
          .update(await fs.readFile(absolute))
          .digest('hex');
        entries.set(path, `file ${(stats.mode & 0o777).toString(8)} ${hash}`);
      }
    }
  }
  await visit('');
  return entries;
}

const sh = (workspace: string, script: string): void => {
  execFileSync('sh', ['-c', script], { cwd: workspace, stdio: 'pipe' });
};

describe('rewinding a mixed session', () => {
  it('restores every step byte- and mode-identically and leaves node_modules alone', async () => {
    const root = await fs.mkdtemp(join(tmpdir(), 'spine-mixed-'));
    roots.push(root);
    const workspace = join(root, 'ws');
    await fs.mkdir(workspace);
    sh(workspace, 'git init -q && git config user.email t@t && git config user.name t');
    await fs.writeFile(join(workspace, '.gitignore'), 'node_modules/\n*.log\n');
    for (let index = 0; index < 1500; index++) {
      const folder = join(workspace, 'node_modules', `pkg${index % 30}`);
      await fs.mkdir(folder, { recursive: true });
      await fs.writeFile(join(folder, `m${index}.js`), `module.exports = ${index};\n`);
    }
    await fs.writeFile(join(workspace, 'README.md'), '# app\n');
    sh(workspace, 'git add -A && git commit -qm init');
    const userIndex = await fs.readFile(join(workspace, '.git', 'index'));
    const store = createGitCheckpointStore({
      workspace,
      directory: join(root, 'store'),
      maxFileBytes: 1024 * 1024,
    });
    const notIgnored = (path: string) =>
      path === '.git' || path === 'node_modules' || path.endsWith('.log');
    const modules = await manifest(join(workspace, 'node_modules'), () => false);
    const steps: Array<(cwd: string) => Promise<void> | void> = [
      async (cwd) => {
        await fs.mkdir(join(cwd, 'src'));
        await fs.writeFile(join(cwd, 'src', 'main.ts'), 'export const x = 1;\n');
      },
      (cwd) => sh(cwd, 'printf "\\000\\001\\377binary" > src/blob.bin && chmod +x src/main.ts'),
      (cwd) => sh(cwd, 'ln -s src/main.ts entry && mv src/main.ts src/index.ts'),
      (cwd) => sh(cwd, 'rm README.md && echo log > run.log && mkdir -p a/b && echo deep > a/b/c'),
      async (cwd) => {
        await fs.rm(join(cwd, 'entry'));
        await fs.mkdir(join(cwd, 'entry'));
        await fs.writeFile(join(cwd, 'entry', 'inner.txt'), 'was a link\n');
        await fs.writeFile(join(cwd, 'big.dat'), Buffer.alloc(2 * 1024 * 1024, 7));
      },
      (cwd) => sh(cwd, 'chmod -x src/index.ts && rm -r a && echo tail >> src/blob.bin'),
    ];
    const checkpoints: string[] = [];
    const skipped: string[] = [];
    const expected: Map<string, string>[] = [];
    for (const step of steps) {
      const checkpoint = await store.checkpoint();
      checkpoints.push(checkpoint.id);
      skipped.push(...checkpoint.skipped);
      expected.push(await manifest(workspace, (path) => notIgnored(path) || path === 'big.dat'));
      await step(workspace);
    }
    const finalCheckpoint = await store.checkpoint();
    expect(skipped).toEqual(['big.dat']);
    checkpoints.push(finalCheckpoint.id);
    expected.push(await manifest(workspace, (path) => notIgnored(path) || path === 'big.dat'));
    const order = [3, 0, 6, 2, 5, 1, 4, 0, 6];
    for (const index of order) {
      await store.restore(checkpoints[index] as string);
      const actual = await manifest(workspace, (path) => notIgnored(path) || path === 'big.dat');
      expect([...actual.entries()].sort(), `step ${index}`).toEqual(
        [...(expected[index] as Map<string, string>).entries()].sort(),
      );
      expect(await manifest(join(workspace, 'node_modules'), () => false)).toEqual(modules);
      expect(await fs.readFile(join(workspace, 'run.log'), 'utf8').catch(() => 'none')).toBe(
        'log\n',
      );
    }
    // The over-cap file was never recorded, so no rewind removed it.
    expect((await fs.stat(join(workspace, 'big.dat'))).size).toBe(2 * 1024 * 1024);
    expect(await fs.readFile(join(workspace, '.git', 'index'))).toEqual(userIndex);
  }, 180_000);
});
