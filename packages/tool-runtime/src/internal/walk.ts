import type { Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { createExcludeMatcher } from '../path-guard.js';
import { nodeWorkspaceFs, type WorkspaceFs } from '../workspace-fs.js';
import { listDirectoryCached } from './listing-cache.js';

/** One entry found by {@link walkWorkspace}. */
export interface WalkEntry {
  absolute: string;
  /** Relative to the workspace root, `/`-separated. */
  relative: string;
  isDirectory: boolean;
  /** 1 for direct children of the start directory. */
  depth: number;
}

/** Options of {@link walkWorkspace}. */
export interface WalkOptions {
  fs: WorkspaceFs;
  /** Workspace root (real path). */
  root: string;
  /** Directory to start from (real path inside the root). */
  start: string;
  exclude?: readonly string[];
  maxDepth?: number;
  signal?: AbortSignal;
}

interface Rules {
  base: string;
  matcher: Ignore;
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

async function loadRules(fs: WorkspaceFs, root: string, dir: string): Promise<Rules | undefined> {
  try {
    const text = (await fs.readFile(join(dir, '.gitignore'))).toString('utf8');
    return { base: toPosix(relative(root, dir)), matcher: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function ignored(rules: readonly Rules[], rel: string, isDirectory: boolean): boolean {
  for (const rule of rules) {
    const inner =
      rule.base === ''
        ? rel
        : rel.startsWith(`${rule.base}/`)
          ? rel.slice(rule.base.length + 1)
          : undefined;
    if (inner === undefined || inner === '') continue;
    if (rule.matcher.ignores(isDirectory ? `${inner}/` : inner)) return true;
  }
  return false;
}

interface Listing {
  own: Rules | undefined;
  entries: readonly Dirent[] | undefined;
}

/** Directories listed ahead of the one being walked (their `.gitignore` and entries). */
const LIST_AHEAD = 32;
/** The walk yields to the event loop at least this often. */
const YIELD_EVERY_MS = 15;

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** On the node file system, synchronously (from the page cache far cheaper than fs/promises), and
 * from the listing cache while the directory is unchanged. */
function listDirectorySync(root: string, dir: string): Listing {
  const { entries, gitignore } = listDirectoryCached(dir);
  return {
    own: gitignore ? { base: toPosix(relative(root, dir)), matcher: gitignore } : undefined,
    entries,
  };
}

async function listDirectory(fs: WorkspaceFs, root: string, dir: string): Promise<Listing> {
  if (fs === nodeWorkspaceFs) return listDirectorySync(root, dir);
  const [own, entries] = await Promise.all([
    loadRules(fs, root, dir),
    fs.readdir(dir, { withFileTypes: true }).then(
      (found) => found.sort(byName),
      () => undefined,
    ),
  ]);
  return { own, entries };
}

interface Kept {
  name: string;
  isDirectory: boolean;
}

/**
 * Which entries of a cached listing a walk kept, by what decided it: the directory's path from the
 * root, the exclude patterns and the `.gitignore` matchers in force (cached listings keep their
 * matcher objects, so unchanged rules are the same objects).
 */
interface KeptMemo {
  relPrefix: string;
  excludeKey: string;
  rules: readonly Rules[];
  kept: readonly Kept[];
}
const keptMemo = new WeakMap<readonly Dirent[], KeptMemo>();

function sameRules(a: readonly Rules[], b: readonly Rules[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++)
    if (a[i]!.matcher !== b[i]!.matcher || a[i]!.base !== b[i]!.base) return false;
  return true;
}

/** The entries of one directory the walk keeps, in name order. */
function keptEntries(
  entries: readonly Dirent[],
  relPrefix: string,
  rules: readonly Rules[],
  excluded: (rel: string) => boolean,
  excludeKey: string,
  memoize: boolean,
): readonly Kept[] {
  const memo = memoize ? keptMemo.get(entries) : undefined;
  if (
    memo &&
    memo.relPrefix === relPrefix &&
    memo.excludeKey === excludeKey &&
    sameRules(memo.rules, rules)
  )
    return memo.kept;
  const kept: Kept[] = [];
  for (const entry of entries) {
    if (entry.isSymbolicLink()) continue;
    const isDirectory = entry.isDirectory();
    if (!isDirectory && !entry.isFile()) continue;
    if (isDirectory && entry.name === '.git') continue;
    const rel = `${relPrefix}${entry.name}`;
    if (excluded(rel) || ignored(rules, rel, isDirectory)) continue;
    kept.push({ name: entry.name, isDirectory });
  }
  if (memoize) keptMemo.set(entries, { relPrefix, excludeKey, rules: [...rules], kept });
  return kept;
}

/**
 * Walks the workspace breadth-first from `start`, in name order, honouring `.gitignore` files
 * (from the root down; only from `start` down when `start` itself is ignored), skipping `.git`,
 * excluded patterns and every symlink (never followed).
 * The next few queued directories are listed ahead concurrently (on the node file system,
 * synchronously, yielding to the event loop every few milliseconds); the order is unchanged.
 */
export async function* walkWorkspace(options: WalkOptions): AsyncGenerator<WalkEntry> {
  for await (const batch of walkWorkspaceBatches(options)) yield* batch;
}

/** {@link walkWorkspace} in batches: the kept entries of one directory at a time. */
export async function* walkWorkspaceBatches(options: WalkOptions): AsyncGenerator<WalkEntry[]> {
  const { fs, root } = options;
  const excluded = createExcludeMatcher(options.exclude);
  const excludeKey = (options.exclude ?? []).join('\0');
  // Listings of the node file system come from the listing cache (and keep their identity).
  const memoize = fs === nodeWorkspaceFs;
  const baseRules: Rules[] = [];
  const startRel = toPosix(relative(root, options.start));
  const ancestors = startRel === '' ? [] : startRel.split('/');
  for (let i = 0; i < ancestors.length; i++) {
    const dir = join(root, ...ancestors.slice(0, i));
    const rules = memoize ? listDirectorySync(root, dir).own : await loadRules(fs, root, dir);
    if (rules) baseRules.push(rules);
  }
  // A start inside an ignored directory (named explicitly, as `node_modules/some-lib`) is walked as
  // a root of its own: its ancestors' `.gitignore` rules, which would hide all of it, do not apply.
  if (startRel !== '' && ignored(baseRules, startRel, true)) baseRules.length = 0;
  const queue: Array<{
    dir: string;
    rel: string;
    depth: number;
    rules: Rules[];
    listing?: Promise<Listing>;
  }> = [{ dir: options.start, rel: startRel, depth: 0, rules: baseRules }];
  let slice = Date.now();
  while (queue.length > 0) {
    if (Date.now() - slice >= YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = Date.now();
    }
    if (options.signal?.aborted) return;
    for (let i = 0; i < Math.min(queue.length, LIST_AHEAD); i++)
      queue[i]!.listing ??= listDirectory(fs, root, queue[i]!.dir);
    const { dir, rel: dirRel, depth, rules: inherited, listing } = queue.shift()!;
    const dirPrefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
    const relPrefix = dirRel === '' ? '' : `${dirRel}/`;
    const { own, entries } = await listing!;
    const rules = own ? [...inherited, own] : inherited;
    if (!entries) continue;
    const batch: WalkEntry[] = [];
    for (const { name, isDirectory } of keptEntries(
      entries,
      relPrefix,
      rules,
      excluded,
      excludeKey,
      memoize,
    )) {
      // Names hold no separator, so these equal join(dir, name) and relative(root, that).
      const absolute = `${dirPrefix}${name}`;
      const rel = `${relPrefix}${name}`;
      batch.push({ absolute, relative: rel, isDirectory, depth: depth + 1 });
      if (isDirectory && (options.maxDepth === undefined || depth + 1 < options.maxDepth)) {
        queue.push({ dir: absolute, rel, depth: depth + 1, rules });
      }
    }
    if (batch.length > 0) yield batch;
  }
}
