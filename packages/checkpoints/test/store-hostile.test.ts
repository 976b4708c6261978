// The store from outside, with hostile input: file names of any bytes (non-UTF-8, newline, CR,
// glob characters), every permission bit of files and folders, sizes around the cap, and
// checkpoints asked for with a (deprecated) path list. Each property compares the exact
// workspace state (names as bytes, content, 12 mode bits) after restore with what was recorded.
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitCheckpointStore } from '../src/index.js';
import { decodePath, encodePath } from '../src/internal/path-bytes.js';
import { under, workspaceState } from './workspace-state.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
});

async function bench(maxFileBytes = 64) {
  const root = await fs.mkdtemp(join(tmpdir(), 'spine-store-hostile-'));
  roots.push(root);
  const workspace = join(root, 'ws');
  await fs.mkdir(workspace);
  const store = createGitCheckpointStore({
    workspace,
    directory: join(root, 'store'),
    maxFileBytes,
  });
  return { root, workspace, store };
}

/** A file name of any bytes but NUL and `/` (not `.`, `..`, `.git…`). */
const nameBytes = fc
  .uint8Array({ minLength: 1, maxLength: 8 })
  .map((bytes) => Buffer.from(bytes.map((byte) => (byte === 0 || byte === 0x2f ? 0x5f : byte))))
  .filter((name) => {
    const text = name.toString('latin1');
    return text !== '.' && text !== '..' && !text.startsWith('.git');
  });
/** Permission bits a file keeps readable by its owner (all 12 bits otherwise free). */
const fileMode = fc.integer({ min: 0, max: 0o7777 }).map((mode) => mode | 0o400);
/** Folder bits: owner rwx kept so the test can walk it; setgid and sticky free. */
const folderMode = fc.integer({ min: 0, max: 0o7777 }).map((mode) => (mode | 0o700) & ~0o4000);

describe('path bytes', () => {
  it('decodePath and encodePath are exact inverses for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const buffer = Buffer.from(bytes);
        expect(encodePath(decodePath(buffer)).equals(buffer)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a store from outside', () => {
  it('restores names of any bytes, every mode bit and sizes around the cap exactly', {
    timeout: 60_000,
  }, async () => {
    const cap = 64;
    const entry = fc.record({
      name: nameBytes,
      mode: fileMode,
      size: fc.constantFrom(0, 5, cap - 1, cap, cap + 1, 200),
      inFolder: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(entry, {
          minLength: 1,
          maxLength: 6,
          selector: (item) => `${item.inFolder}:${item.name.toString('hex')}`,
        }),
        folderMode,
        fc.array(fileMode, { minLength: 6, maxLength: 6 }),
        async (entries, dirMode, laterModes) => {
          const { workspace, store } = await bench(cap);
          const folder = Buffer.from('sub');
          await fs.mkdir(under(workspace, folder));
          // Git records folders through their files: the folder holds one that is kept.
          await fs.writeFile(under(workspace, Buffer.from('sub/kept')), 'kept');
          const place = (item: (typeof entries)[number]) =>
            item.inFolder ? Buffer.concat([folder, Buffer.from('/'), item.name]) : item.name;
          const over = new Set<string>();
          for (const item of entries) {
            const path = under(workspace, place(item));
            await fs.writeFile(path, Buffer.alloc(item.size, 0x61 + (item.size % 20)));
            await fs.chmod(path, item.mode);
            if (item.size > cap) over.add(place(item).toString('hex'));
          }
          await fs.chmod(under(workspace, folder), dirMode);
          const recorded = await workspaceState(workspace, over);
          const first = await store.checkpoint();
          expect(new Set(first.skipped.map((path) => encodePath(path).toString('hex')))).toEqual(
            over,
          );
          // Change everything: content, modes, a deletion and a new file with a hostile name.
          for (const [index, item] of entries.entries()) {
            const path = under(workspace, place(item));
            if (item.size > cap) continue;
            if (index === 0) await fs.rm(path);
            else {
              await fs.appendFile(path, 'changed');
              await fs.chmod(path, laterModes[index] as number);
            }
          }
          await fs.chmod(under(workspace, folder), 0o755);
          await fs.writeFile(under(workspace, Buffer.from([0x6e, 0xff, 0x0a, 0x0d])), 'new');
          await store.checkpoint({ paths: [] });
          await store.restore(first.id);
          expect(await workspaceState(workspace, over)).toEqual(recorded);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('a checkpoint asked for some paths still holds what earlier steps wrote elsewhere', async () => {
    const { workspace, store } = await bench();
    await store.checkpoint();
    await fs.writeFile(join(workspace, 'earlier.txt'), 'written by step 1');
    const second = await store.checkpoint({ paths: ['later.txt'] });
    await fs.writeFile(join(workspace, 'later.txt'), 'written by step 2');
    await store.restore(second.id);
    expect(await fs.readFile(join(workspace, 'earlier.txt'), 'utf8')).toBe('written by step 1');
  });

  it('an over-cap name with a newline never hides other files, and a shrunk file is kept again', async () => {
    const { workspace, store } = await bench(16);
    await store.checkpoint();
    // As one pattern per line this would write "*" as a line of its own and ignore everything.
    await fs.writeFile(join(workspace, 'big\n*'), Buffer.alloc(100));
    await fs.writeFile(join(workspace, 'grows.txt'), Buffer.alloc(100));
    const second = await store.checkpoint();
    expect(second.skipped.sort()).toEqual(['big\n*', 'grows.txt']);
    await fs.writeFile(join(workspace, 'later.txt'), 'later');
    await fs.writeFile(join(workspace, 'grows.txt'), 'small now');
    const third = await store.checkpoint();
    expect(third.changes.map((change) => change.path).sort()).toEqual(['grows.txt', 'later.txt']);
    expect(third.skipped).toEqual(['big\n*']);
    await fs.rm(join(workspace, 'later.txt'));
    await fs.rm(join(workspace, 'grows.txt'));
    await store.restore(third.id);
    expect(await fs.readFile(join(workspace, 'grows.txt'), 'utf8')).toBe('small now');
  });

  it('sessions have their own index; a held lock says to wait, never to remove it', async () => {
    const { root, workspace } = await bench();
    const directory = join(root, 'store');
    const one = createGitCheckpointStore({ workspace, directory, session: 'one' });
    const two = createGitCheckpointStore({ workspace, directory, session: 'two' });
    await one.checkpoint();
    await fs.writeFile(join(directory, 'git', 'index-one.lock'), '');
    await fs.writeFile(join(workspace, 'a.txt'), 'a');
    expect((await two.checkpoint()).id).toMatch(/^[0-9a-f]{40}$/);
    const message = await one.checkpoint().then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    expect(message).toMatch(/wait for it to finish/);
    expect(message).not.toMatch(/remove/i);
  });

  it('a deleted store is a STORE_UNAVAILABLE error that changes nothing', async () => {
    const { root, workspace, store } = await bench();
    await fs.writeFile(join(workspace, 'a.txt'), 'one');
    const first = await store.checkpoint();
    await fs.writeFile(join(workspace, 'a.txt'), 'two');
    await fs.rm(join(root, 'store'), { recursive: true, force: true });
    const fresh = createGitCheckpointStore({ workspace, directory: join(root, 'store') });
    const code = await fresh.restore(first.id).then(
      () => 'resolved',
      (error: unknown) => (error as { code?: string }).code,
    );
    expect(code).toBe('STORE_UNAVAILABLE');
    expect(await fs.readFile(join(workspace, 'a.txt'), 'utf8')).toBe('two');
  });
});
