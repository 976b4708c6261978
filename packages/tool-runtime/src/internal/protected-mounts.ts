import { accessSync, constants, lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import picomatch from 'picomatch';

/** What the shell sandbox binds read-only over a writable workspace. */
export interface ProtectedMounts {
  /**
   * Directories between the workspace root and a protected path, bound (writable) onto themselves
   * first: a mount point cannot be renamed or removed, so `mv .git .git2 && mkdir .git` cannot
   * swap a protected directory for one the command wrote.
   */
  pinned: string[];
  /** Existing workspace-relative paths to bind read-only onto themselves. */
  existing: string[];
  /**
   * Missing directories that would let a command create protected files: each gets an empty
   * read-only directory bound over it (bwrap creates the empty mount point in the workspace).
   */
  missingDirectories: string[];
}

const SKIP_WALK = new Set(['objects', 'refs', 'logs', 'lfs', 'node_modules']);
const MAX_WALK_DEPTH = 5;
const MAX_WALK_ENTRIES = 2000;

function kindOf(path: string): 'file' | 'directory' | 'other' | undefined {
  try {
    // No exception for the common missing case: this runs before every sandboxed command.
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats) return undefined;
    if (stats.isDirectory()) return 'directory';
    return stats.isFile() ? 'file' : 'other';
  } catch {
    return undefined; // ENOTDIR and the like: not there either
  }
}

interface PatternShape {
  /** The pattern without a trailing `/**`. */
  path: string;
  /** It ended in `/**` (protects a directory tree). */
  isTree: boolean;
  /** Literal base directory and matcher, when the pattern has a wildcard before its end. */
  glob?: { base: string; isMatch: (path: string) => boolean };
}

const shapes = new Map<string, PatternShape>();

function shapeOf(pattern: string): PatternShape {
  let shape = shapes.get(pattern);
  if (!shape) {
    const isTree = pattern.endsWith('/**');
    const path = isTree ? pattern.slice(0, -3) : pattern;
    const scan = picomatch.scan(path);
    shape = scan.isGlob
      ? {
          path,
          isTree,
          glob: { base: scan.base, isMatch: picomatch(path, { dot: true, nocase: true }) },
        }
      : { path, isTree };
    shapes.set(pattern, shape);
  }
  return shape;
}

/**
 * Lists the protected paths to bind read-only in `workspace` now. A pattern `dir/**` protects the
 * directory `dir`; a plain path protects that file; a pattern with a wildcard in the
 * middle (`.git/modules/**\/config`) is expanded by a bounded walk of its literal base directory.
 * bwrap resolves symbolic links in bind paths, so a path whose real location is outside the
 * workspace is left out (it is read-only there already, and a writable pin would expose it).
 */
export function protectedMounts(workspace: string, patterns: readonly string[]): ProtectedMounts {
  const existing = new Set<string>();
  const missingDirectories = new Set<string>();
  for (const pattern of patterns) {
    const { path, isTree, glob } = shapeOf(pattern);
    if (!glob) {
      const kind = kindOf(join(workspace, path));
      // A plain pattern protects a file (`.git` as a gitdir pointer, never the .git directory).
      if (kind === 'file' || (kind === 'directory' && isTree)) existing.add(path);
      else if (kind === undefined && isTree && mayCreate(workspace, path))
        missingDirectories.add(path);
      continue;
    }
    for (const match of walkMatches(workspace, glob.base, glob.isMatch)) existing.add(match);
  }
  // A path under another protected path is already read-only.
  const all = [...existing].sort();
  const outer = all.filter(
    (path) =>
      !all.some(
        (other) =>
          other !== path &&
          path.startsWith(`${other}/`) &&
          kindOf(join(workspace, other)) === 'directory',
      ),
  );
  // bwrap resolves symbolic links in bind paths: a path whose real location is outside the
  // workspace is read-only there already, and binding it (writable, for a pin) would expose it.
  const staysInside = (path: string): boolean => {
    const slash = path.lastIndexOf('/');
    if (kindOf(join(workspace, path)) === undefined)
      return slash < 0 || staysInside(path.slice(0, slash)); // missing: judge by its parent
    try {
      const real = realpathSync.native(join(workspace, path));
      return real === workspace || real.startsWith(workspace + sep);
    } catch {
      return false;
    }
  };
  const pinned = new Set<string>();
  for (const path of [...outer, ...missingDirectories]) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) pinned.add(parts.slice(0, i).join('/'));
  }
  for (const path of outer) pinned.delete(path);
  const depth = (path: string): number => path.split('/').length;
  return {
    pinned: [...pinned]
      .filter(staysInside)
      .sort((a, b) => depth(a) - depth(b) || a.localeCompare(b)),
    existing: outer.filter(staysInside),
    missingDirectories: [...missingDirectories].filter(staysInside).sort(),
  };
}

// A missing protected directory gets an empty mount point (left behind, empty, in the workspace)
// when its parent exists below the root (`.git/hooks` in a repository) or when it is Spine's own
// `.spine`; other missing top-level directories (`.husky`) are not created in every workspace.
function mayCreate(workspace: string, relative: string): boolean {
  const slash = relative.lastIndexOf('/');
  if (slash >= 0 && kindOf(join(workspace, relative.slice(0, slash))) !== 'directory') return false;
  if (slash < 0 && relative !== '.spine') return false;
  // bwrap must be able to make the mount point, or every command would fail to start.
  try {
    accessSync(slash < 0 ? workspace : join(workspace, relative.slice(0, slash)), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function walkMatches(
  workspace: string,
  base: string,
  isMatch: (path: string) => boolean,
): string[] {
  if (!base || kindOf(join(workspace, base)) !== 'directory') return [];
  const found: string[] = [];
  let budget = MAX_WALK_ENTRIES;
  const visit = (relative: string, depth: number): void => {
    if (depth > MAX_WALK_DEPTH || budget <= 0) return;
    let names: string[];
    try {
      names = readdirSync(join(workspace, relative));
    } catch {
      return;
    }
    for (const name of names) {
      if (--budget <= 0) return;
      const child = `${relative}/${name}`;
      const kind = kindOf(join(workspace, child));
      if (isMatch(child) && (kind === 'file' || kind === 'directory')) found.push(child);
      else if (kind === 'directory' && !SKIP_WALK.has(name)) visit(child, depth + 1);
    }
  };
  visit(base, 0);
  return found;
}

/**
 * Protected plain files that cannot be bound because they do not exist yet, below a directory
 * that does (`.git/commondir` in a repository without one). bwrap could only bind them by
 * creating them, which would change what git reads; instead the caller removes any of them that a
 * command created ({@link removeCreatedProtectedFiles}). Top-level names (a `.git` pointer file)
 * are left alone: `git init --separate-git-dir` creates one legitimately.
 */
export function missingProtectedFiles(workspace: string, patterns: readonly string[]): string[] {
  const missing: string[] = [];
  for (const pattern of patterns) {
    if (shapeOf(pattern).isTree || shapeOf(pattern).glob) continue;
    const slash = pattern.lastIndexOf('/');
    if (slash < 0) continue;
    if (kindOf(join(workspace, pattern)) !== undefined) continue;
    if (kindOf(join(workspace, pattern.slice(0, slash))) === 'directory') missing.push(pattern);
  }
  return missing;
}

/** Removes the files of {@link missingProtectedFiles} that exist now; returns the ones removed. */
export function removeCreatedProtectedFiles(
  workspace: string,
  missing: readonly string[],
): string[] {
  const removed: string[] = [];
  for (const path of missing) {
    const absolute = join(workspace, path);
    if (kindOf(absolute) === undefined) continue;
    try {
      rmSync(absolute, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}
