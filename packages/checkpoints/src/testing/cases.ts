// The CheckpointStore conformance cases: each builds a real workspace in a temporary folder,
// changes real files, and checks what the store records and restores.

import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceCase } from '@spine/protocol/testing';
import { ensure, show, works } from '@spine/protocol/testing';
import type { CheckpointStore } from '../checkpoint-store.js';

/** What the CheckpointStore kit needs: a way to make a fresh store over a workspace folder. */
export interface CheckpointStoreFixture {
  /**
   * Makes a store over `workspace` (an existing folder the kit made) with its data in `directory`
   * (an empty folder outside the workspace).
   */
  store(workspace: string, directory: string): CheckpointStore | Promise<CheckpointStore>;
}

interface Bench {
  root: string;
  store: CheckpointStore;
  workspace: string;
  path(relative: string): string;
}

async function setUp(fixture: CheckpointStoreFixture): Promise<Bench> {
  const root = await fs.mkdtemp(join(tmpdir(), 'spine-checkpoint-kit-'));
  const workspace = join(root, 'workspace');
  const directory = join(root, 'store');
  try {
    await fs.mkdir(workspace);
    await fs.mkdir(directory);
    await fs.writeFile(join(workspace, 'a.txt'), 'alpha\n');
    await fs.mkdir(join(workspace, 'src'));
    await fs.writeFile(join(workspace, 'src', 'b.bin'), Buffer.from([0, 1, 2, 255, 10, 13]));
    await fs.writeFile(join(workspace, '.gitignore'), 'ignored/\n');
    const store = await works(() => fixture.store(workspace, directory), 'making the store');
    return { root, store, workspace, path: (relative) => join(workspace, relative) };
  } catch (error) {
    // The case never starts, so its cleanup never runs: remove the folder here (a factory that
    // throws left one spine-checkpoint-kit-* folder per case behind).
    await fs.rm(root, { recursive: true, force: true });
    throw error;
  }
}

async function readOrUndefined(path: string): Promise<string | undefined> {
  return fs.readFile(path, 'utf8').catch(() => undefined);
}

function cases(): ConformanceCase<CheckpointStoreFixture>[] {
  const list: ConformanceCase<CheckpointStoreFixture>[] = [];
  const add = (name: string, run: (bench: Bench) => Promise<void>) =>
    list.push({
      name,
      run: async (fixture) => {
        const bench = await setUp(fixture);
        try {
          await run(bench);
        } finally {
          await fs.rm(bench.root, { recursive: true, force: true });
        }
      },
    });

  add('restores modified, deleted and added files to the checkpoint', async (bench) => {
    const first = await bench.store.checkpoint();
    await fs.writeFile(bench.path('a.txt'), 'changed\n');
    await fs.rm(bench.path('src/b.bin'));
    await fs.writeFile(bench.path('new.txt'), 'new\n');
    const result = await works(() => bench.store.restore(first.id), 'restore');
    ensure(result.changes.length === 3, `expected 3 changes, got ${show(result.changes)}`);
    ensure((await readOrUndefined(bench.path('a.txt'))) === 'alpha\n', 'a.txt not restored');
    const binary = await fs.readFile(bench.path('src/b.bin')).catch(() => undefined);
    ensure(binary?.equals(Buffer.from([0, 1, 2, 255, 10, 13])), 'src/b.bin not recreated');
    ensure((await readOrUndefined(bench.path('new.txt'))) === undefined, 'new.txt not removed');
  });

  add('records the same id for the same content and lists changes by kind', async (bench) => {
    const first = await bench.store.checkpoint();
    const again = await bench.store.checkpoint();
    ensure(first.id === again.id, `same workspace gave ${first.id} then ${again.id}`);
    await fs.writeFile(bench.path('a.txt'), 'changed\n');
    await fs.writeFile(bench.path('c.txt'), 'c\n');
    const changes = await bench.store.diff(first.id);
    const kinds = changes.map((change) => `${change.kind}:${change.path}`).sort();
    ensure(show(kinds) === show(['added:c.txt', 'modified:a.txt']), `diff listed ${show(kinds)}`);
  });

  add('restores the executable bit and symbolic links', async (bench) => {
    await fs.chmod(bench.path('a.txt'), 0o755);
    await fs.symlink('a.txt', bench.path('link'));
    const first = await bench.store.checkpoint();
    await fs.chmod(bench.path('a.txt'), 0o644);
    await fs.rm(bench.path('link'));
    await fs.writeFile(bench.path('link'), 'now a file');
    await bench.store.restore(first.id);
    const mode = (await fs.stat(bench.path('a.txt'))).mode & 0o111;
    ensure(mode !== 0, 'a.txt lost its executable bit');
    const link = await fs.readlink(bench.path('link')).catch(() => undefined);
    ensure(link === 'a.txt', `link points to ${show(link)}`);
  });

  add('neither records nor touches files the .gitignore excludes', async (bench) => {
    await fs.mkdir(bench.path('ignored'));
    await fs.writeFile(bench.path('ignored/x.js'), 'one');
    const first = await bench.store.checkpoint();
    await fs.writeFile(bench.path('ignored/x.js'), 'two');
    await fs.writeFile(bench.path('ignored/y.js'), 'new');
    const changes = await bench.store.diff(first.id);
    ensure(changes.length === 0, `ignored files showed up: ${show(changes)}`);
    await bench.store.restore(first.id);
    ensure((await readOrUndefined(bench.path('ignored/x.js'))) === 'two', 'ignored file restored');
    ensure((await readOrUndefined(bench.path('ignored/y.js'))) === 'new', 'ignored file removed');
  });

  add('writes nothing on a dry run', async (bench) => {
    const first = await bench.store.checkpoint();
    await fs.writeFile(bench.path('a.txt'), 'changed\n');
    const result = await bench.store.restore(first.id, { dryRun: true });
    ensure(result.dryRun && result.changes.length === 1, `dry run reported ${show(result)}`);
    ensure((await readOrUndefined(bench.path('a.txt'))) === 'changed\n', 'dry run wrote a.txt');
  });

  add('restores only the paths asked for', async (bench) => {
    const first = await bench.store.checkpoint();
    await fs.writeFile(bench.path('a.txt'), 'changed\n');
    await fs.writeFile(bench.path('c.txt'), 'c\n');
    await bench.store.restore(first.id, { paths: ['a.txt'] });
    ensure((await readOrUndefined(bench.path('a.txt'))) === 'alpha\n', 'a.txt not restored');
    ensure((await readOrUndefined(bench.path('c.txt'))) === 'c\n', 'c.txt was touched');
  });

  add('rejects an unknown checkpoint id with CHECKPOINT_NOT_FOUND', async (bench) => {
    await bench.store.checkpoint();
    for (const id of ['0'.repeat(40), 'not-an-id', '../../etc']) {
      const outcome = await bench.store.restore(id).then(
        () => 'resolved',
        (error: unknown) => (error as { code?: string }).code,
      );
      ensure(outcome === 'CHECKPOINT_NOT_FOUND', `restore(${show(id)}) gave ${show(outcome)}`);
    }
  });

  add("never reads or writes the workspace's own .git", async (bench) => {
    await fs.mkdir(bench.path('.git'));
    await fs.writeFile(bench.path('.git/HEAD'), 'ref: refs/heads/main\n');
    const first = await bench.store.checkpoint();
    await fs.writeFile(bench.path('.git/HEAD'), 'changed by the user\n');
    const changes = await bench.store.diff(first.id);
    ensure(changes.length === 0, `.git showed up in a diff: ${show(changes)}`);
    await bench.store.restore(first.id);
    const head = await readOrUndefined(bench.path('.git/HEAD'));
    ensure(head === 'changed by the user\n', `.git/HEAD was rewritten: ${show(head)}`);
  });

  add('checkpoints with known paths see those paths change', async (bench) => {
    const first = await bench.store.checkpoint();
    await fs.writeFile(bench.path('a.txt'), 'changed\n');
    await fs.writeFile(bench.path('d.txt'), 'd\n');
    const second = await bench.store.checkpoint({ paths: ['a.txt', 'd.txt', 'missing.txt'] });
    const kinds = second.changes.map((change) => `${change.kind}:${change.path}`).sort();
    ensure(show(kinds) === show(['added:d.txt', 'modified:a.txt']), `changes ${show(kinds)}`);
    ensure((await bench.store.read(first.id, 'a.txt'))?.toString() === 'alpha\n', 'read old');
    ensure((await bench.store.read(second.id, 'a.txt'))?.toString() === 'changed\n', 'read new');
    ensure((await bench.store.read(first.id, 'd.txt')) === undefined, 'read of a missing file');
  });

  return list;
}

/** The CheckpointStore scenarios, in a stable order. */
export const checkpointStoreCases: readonly ConformanceCase<CheckpointStoreFixture>[] =
  Object.freeze(cases());
