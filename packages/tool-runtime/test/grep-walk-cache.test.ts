// The walk keeps directory listings between calls (src/internal/listing-cache.ts). Whatever happens
// to the tree between two walks (entries added, removed, renamed, replaced by symlinks, a
// `.gitignore` rewritten in place with the same size, a directory's mtime set back), the cached walk
// must list exactly what a walk without the cache lists. The reference is the walk through a file
// system port other than the node one, which never uses the cache.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { listingCacheControl } from '../src/internal/listing-cache.js';
import { walkWorkspace } from '../src/internal/walk.js';
import { nodeWorkspaceFs, type WorkspaceFs } from '../src/workspace-fs.js';
import { makeTempDir } from './helpers.js';

const DIRS = ['', 'a', 'a/c', '.h'];
const NAMES = ['x.txt', 'y.log', 'z', '.gitignore', 'c', 'd'];
const GITIGNORES = ['*.log\n', 'z.txt\n', '!y.log\n*.log\n', 'c/\n', '/x.txt\n', 'd\n', '*\n!*/\n'];

type Op =
  | { op: 'write'; path: string; text: string }
  | { op: 'rm'; path: string }
  | { op: 'mkdir'; path: string }
  | { op: 'symlink'; path: string; target: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'setBack'; dir: string };

const path = fc
  .tuple(fc.constantFrom(...DIRS), fc.constantFrom(...NAMES))
  .map(([dir, name]) => (dir === '' ? name : `${dir}/${name}`));
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      path,
      text: fc.oneof(fc.constantFrom(...GITIGNORES), fc.constantFrom('hello\n', '')),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rm' as const), path }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('mkdir' as const), path }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('symlink' as const),
      path,
      target: fc.constantFrom('.', 'a', 'x.txt', '../outside'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rename' as const), from: path, to: path }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('setBack' as const), dir: fc.constantFrom(...DIRS) }),
  },
);
/** Edits: as above, and often a `.gitignore` rewritten in place followed by a directory set back. */
const edit: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: op },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      path: fc
        .constantFrom(...DIRS)
        .map((dir) => (dir === '' ? '.gitignore' : `${dir}/.gitignore`)),
      text: fc.constantFrom(...GITIGNORES),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('setBack' as const), dir: fc.constantFrom(...DIRS) }),
  },
);

function isListed(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

const OLD = new Date(Date.now() - 3_600_000);

/** Applies `op` inside `root` when it makes sense for the tree as it is; otherwise does nothing. */
function apply(root: string, step: Op): void {
  const at = (rel: string): string => join(root, rel);
  // Every ancestor a real directory (never through a symlink).
  const parentIsDirectory = (rel: string): boolean => {
    const parts = rel.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = at(parts.slice(0, i).join('/'));
      if (!isListed(dir) || !lstatSync(dir).isDirectory()) return false;
    }
    return true;
  };
  switch (step.op) {
    case 'write': {
      if (!parentIsDirectory(step.path)) return;
      if (isListed(at(step.path)) && !lstatSync(at(step.path)).isFile()) return;
      writeFileSync(at(step.path), step.text);
      return;
    }
    case 'rm':
      if (parentIsDirectory(step.path)) rmSync(at(step.path), { recursive: true, force: true });
      return;
    case 'mkdir':
      if (parentIsDirectory(step.path) && !isListed(at(step.path))) mkdirSync(at(step.path));
      return;
    case 'symlink':
      if (!parentIsDirectory(step.path)) return;
      rmSync(at(step.path), { recursive: true, force: true });
      symlinkSync(step.target, at(step.path));
      return;
    case 'rename':
      if (step.from === step.to || step.to.startsWith(`${step.from}/`)) return;
      if (step.from.startsWith(`${step.to}/`)) return;
      if (!parentIsDirectory(step.from) || !isListed(at(step.from))) return;
      if (!parentIsDirectory(step.to)) return;
      rmSync(at(step.to), { recursive: true, force: true });
      renameSync(at(step.from), at(step.to));
      return;
    case 'setBack':
      // A tool that restores a directory's mtime after changing it (only the ctime then tells).
      if (isListed(at(step.dir)) && lstatSync(at(step.dir)).isDirectory())
        utimesSync(at(step.dir), OLD, OLD);
      return;
  }
}

/** Every entry of a walk: path, kind and depth, in walk order. */
async function walk(root: string, fs: WorkspaceFs): Promise<string[]> {
  const seen: string[] = [];
  for await (const entry of walkWorkspace({ fs, root, start: root }))
    seen.push(`${entry.relative}${entry.isDirectory ? '/' : ''} ${entry.depth}`);
  return seen;
}

/**
 * The whole-tree walk, and walks whose kept entries differ for the same cached listings: from a
 * subdirectory (its ancestors' rules), with excludes, and with a subdirectory as the root.
 */
async function views(root: string, fs: WorkspaceFs): Promise<string[][]> {
  const all = [await walk(root, fs)];
  for (const [start, exclude, subRoot] of [
    ['a', [], false],
    ['', ['**/z', 'a/c'], false],
    ['a', [], true],
    ['', ['c', 'x.txt'], false],
    ['a', ['c', 'x.txt'], true],
  ] as const) {
    const base = subRoot ? join(root, start) : root;
    const seen: string[] = [];
    if (isListed(join(root, start)) && lstatSync(join(root, start)).isDirectory())
      for await (const entry of walkWorkspace({
        fs,
        root: base,
        start: join(root, start),
        exclude,
      }))
        seen.push(`${entry.relative}${entry.isDirectory ? '/' : ''} ${entry.depth}`);
    all.push(seen);
  }
  return all;
}

const uncachedFs: WorkspaceFs = { ...nodeWorkspaceFs };
const temp = makeTempDir('spine-walk-cache-');
afterAll(() => {
  listingCacheControl({ racyMs: 3_000 });
  temp.cleanup();
});
let tree = 0;

describe('walk listing cache', () => {
  it('a walk after any edits lists what an uncached walk lists', async () => {
    // Settling margin shortened to 100 ms so each case waits briefly instead of three seconds;
    // every edit below happens at once after a cached walk, inside the same clock tick or not.
    listingCacheControl({ racyMs: 100 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 20 }),
        fc.boolean(),
        fc.array(edit, { minLength: 1, maxLength: 6 }),
        fc.array(fc.option(fc.constantFrom(...GITIGNORES)), {
          minLength: DIRS.length,
          maxLength: DIRS.length,
        }),
        async (build, setBackAll, edits, gitignores) => {
          const root = join(temp.dir, `t${++tree}`);
          // Every directory with every name and a `.gitignore`, then random changes on top.
          DIRS.forEach((dir, i) => {
            mkdirSync(join(root, dir), { recursive: true });
            for (const name of ['x.txt', 'y.log', 'z']) writeFileSync(join(root, dir, name), name);
            const gitignore = gitignores[i];
            if (gitignore !== null && gitignore !== undefined)
              writeFileSync(join(root, dir, '.gitignore'), gitignore);
          });
          for (const step of build) apply(root, step);
          // A tree checked out long ago: every directory's mtime in the past (ctimes stay recent).
          if (setBackAll) for (const dir of DIRS) apply(root, { op: 'setBack', dir });
          await sleep(150);
          expect(await views(root, nodeWorkspaceFs)).toEqual(await views(root, uncachedFs));
          const before = await walk(root, uncachedFs);
          expect(await walk(root, nodeWorkspaceFs)).toEqual(before);
          const counted = listingCacheControl();
          // Nothing changed: the second cached walk lists every directory from the cache.
          expect(await walk(root, nodeWorkspaceFs)).toEqual(before);
          const after = listingCacheControl();
          // Except a directory whose `.gitignore` cannot be read as a file (never kept).
          const dirs = ['', ...before.filter((line) => line.includes('/ '))].map(
            (line) => line.split('/ ')[0]!,
          );
          const unreadable = dirs.filter((dir) => {
            const file = join(root, dir, '.gitignore');
            if (!isListed(file)) return false;
            return !existsSync(file) || !statSync(file).isFile();
          }).length;
          expect(after.misses - counted.misses).toBe(unreadable);
          expect(after.hits - counted.hits).toBe(dirs.length - unreadable);
          for (const step of edits) apply(root, step);
          expect(await views(root, nodeWorkspaceFs)).toEqual(await views(root, uncachedFs));
          rmSync(root, { recursive: true, force: true });
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('does not keep the listing of a directory changed moments before it was listed', async () => {
    listingCacheControl({ racyMs: 3_000 });
    const root = join(temp.dir, 'fresh');
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(root, 'sub', 'one.txt'), '1');
    await walk(root, nodeWorkspaceFs);
    const counted = listingCacheControl();
    await walk(root, nodeWorkspaceFs);
    const after = listingCacheControl();
    expect(after.hits).toBe(counted.hits);
    expect(after.misses).toBe(counted.misses + 2);
  });
});
