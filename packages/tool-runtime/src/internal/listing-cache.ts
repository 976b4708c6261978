// Directory listings on the node file system, kept between walks. A listing (the sorted entries and
// the compiled `.gitignore` of the directory) is reused only while the directory and its
// `.gitignore` are provably unchanged: the same device, inode, size, mtime and ctime as when it was
// listed. Adding, removing or renaming an entry sets the directory's mtime and ctime to the current
// time; rewriting `.gitignore` in place sets the file's. Resetting an mtime (utimes) still sets the
// ctime. Timestamps have a granularity (a clock tick, two seconds on FAT), so a change made in the
// same tick as the listing could leave them equal: a listing is therefore kept only when both
// timestamps were already 3 s (`racyMs`) older than the moment it was taken (git's "racily clean"
// rule). A change made after the listing then carries a later timestamp than the one recorded. (A
// network file system that caches attributes is as fresh here as its stat answers; so is readdir.)
import { type Dirent, readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** A directory's entries in name order and its `.gitignore` rules, if it has one. */
export interface DirectoryListing {
  /** `undefined` when the directory could not be read. */
  entries: readonly Dirent[] | undefined;
  gitignore: Ignore | undefined;
}

interface Stamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

interface Cached {
  listing: DirectoryListing;
  dir: Stamp;
  /** Set when the directory lists a `.gitignore`. */
  gitignoreFile: Stamp | undefined;
}

let racyMs = 3_000;
/** Entries kept over all listings; the oldest listings are dropped beyond this. */
const MAX_ENTRIES = 200_000;
let entriesKept = 0;
const cache = new Map<string, Cached>();
const counters = { hits: 0, misses: 0 };

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function stampOf(path: string): Stamp | undefined {
  let stats: Stats | undefined;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!stats) return undefined;
  const { dev, ino, size, mtimeMs, ctimeMs } = stats;
  return { dev, ino, size, mtimeMs, ctimeMs };
}

function same(a: Stamp, b: Stamp | undefined): boolean {
  return (
    b !== undefined &&
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs
  );
}

/** Whether both timestamps lie far enough before `listedAt` that a later change must differ. */
function settled(stamp: Stamp | undefined, listedAt: number): stamp is Stamp {
  return stamp !== undefined && Math.max(stamp.mtimeMs, stamp.ctimeMs) < listedAt - racyMs;
}

function readListing(dir: string): {
  listing: DirectoryListing;
  gitignoreFile?: Stamp;
  ok: boolean;
} {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort(byName);
  } catch {
    return { listing: { entries: undefined, gitignore: undefined }, ok: false };
  }
  // Only a directory that lists a `.gitignore` is asked for one (a failed open costs an exception).
  if (!entries.some((entry) => entry.name === '.gitignore'))
    return { listing: { entries, gitignore: undefined }, ok: true };
  const path = join(dir, '.gitignore');
  // Stamped before it is read: a change after the stamp shows in the next stamp.
  const gitignoreFile = stampOf(path);
  try {
    const gitignore = ignore().add(readFileSync(path, 'utf8'));
    return { listing: { entries, gitignore }, gitignoreFile, ok: true };
  } catch {
    return { listing: { entries, gitignore: undefined }, ok: false };
  }
}

function forget(dir: string): void {
  const cached = cache.get(dir);
  if (!cached) return;
  entriesKept -= cached.listing.entries!.length + 1;
  cache.delete(dir);
}

/**
 * Lists `dir` (an absolute real path): from the cache when the directory and its `.gitignore` are
 * unchanged since they were listed, otherwise afresh (and kept when its timestamps are settled).
 * The returned entries must not be modified.
 */
export function listDirectoryCached(dir: string): DirectoryListing {
  const listedAt = Date.now();
  // Stamped before it is listed: an entry added after the stamp shows in the next stamp.
  const stamp = stampOf(dir);
  const cached = cache.get(dir);
  if (
    cached &&
    stamp &&
    same(cached.dir, stamp) &&
    (cached.gitignoreFile === undefined ||
      same(cached.gitignoreFile, stampOf(join(dir, '.gitignore'))))
  ) {
    counters.hits++;
    return cached.listing;
  }
  counters.misses++;
  const { listing, gitignoreFile, ok } = readListing(dir);
  const hasGitignore = listing.gitignore !== undefined;
  if (ok && settled(stamp, listedAt) && (!hasGitignore || settled(gitignoreFile, listedAt))) {
    forget(dir);
    cache.set(dir, {
      listing,
      dir: stamp,
      gitignoreFile: hasGitignore ? gitignoreFile : undefined,
    });
    entriesKept += listing.entries!.length + 1;
    while (entriesKept > MAX_ENTRIES) forget(cache.keys().next().value!);
  } else {
    forget(dir);
  }
  return listing;
}

/** For tests: cache hits and misses so far, and the settling margin (default 3,000 ms). */
export function listingCacheControl(options?: { racyMs?: number; clear?: boolean }): {
  hits: number;
  misses: number;
} {
  if (options?.racyMs !== undefined) racyMs = options.racyMs;
  if (options?.clear) {
    cache.clear();
    entriesKept = 0;
  }
  return { ...counters };
}
