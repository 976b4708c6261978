import type { Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { PathRefusedError } from './errors.js';
import { nodeWorkspaceFs, type WorkspaceFs } from './workspace-fs.js';

/** Options of {@link resolveWorkspacePath}. */
export interface ResolveWorkspacePathOptions {
  /** Glob patterns (relative to the workspace root) that are refused, with everything under them. */
  exclude?: readonly string[];
  /** What an existing path must be. Default `'any'` (a regular file or a directory). */
  kind?: 'file' | 'directory' | 'any';
  /** File-system port; defaults to the real file system. */
  fs?: WorkspaceFs;
}

/** A path proven to be inside the workspace. */
export interface ResolvedWorkspacePath {
  /** Absolute real path (symlinks resolved; for a path that does not exist yet, its real parent plus the rest). */
  absolute: string;
  /** Path relative to the workspace root, with `/` separators (`.` for the root itself). */
  relative: string;
  /** Whether the path exists now. */
  exists: boolean;
  /** Stats of the existing target (follows symlinks inside the workspace). */
  stats?: Stats;
}

const MAX_PATH_CHARS = 4096;
const MAX_NAME_BYTES = 255;
const ENCODED = /%(2e|2f|5c|00)/i;
const matcherCache = new Map<string, (path: string) => boolean>();

/** True when `child` is `root` or lies under it (both absolute and normalised). */
export function isInside(root: string, child: string): boolean {
  if (child === root) return true;
  const base = root.endsWith(sep) ? root : root + sep;
  return child.startsWith(base);
}

function toRelative(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** Returns a predicate telling whether a workspace-relative path (or any ancestor) is excluded. */
export function createExcludeMatcher(
  patterns: readonly string[] = [],
): (relativePath: string) => boolean {
  if (patterns.length === 0) return () => false;
  const key = patterns.join('\0');
  let matcher = matcherCache.get(key);
  if (!matcher) {
    const isMatch = picomatch([...patterns], { dot: true });
    matcher = (rel: string) => {
      if (rel === '.') return false;
      const parts = rel.split('/');
      for (let i = 1; i <= parts.length; i++) {
        if (isMatch(parts.slice(0, i).join('/'))) return true;
      }
      return false;
    };
    matcherCache.set(key, matcher);
  }
  return matcher;
}

function checkSyntax(userPath: unknown): asserts userPath is string {
  const shown = String(userPath);
  if (typeof userPath !== 'string' || userPath.length === 0) {
    throw new PathRefusedError({ path: shown, reason: 'is empty or not a string' });
  }
  if (userPath.includes('\0'))
    throw new PathRefusedError({ path: userPath, reason: 'contains a NUL byte' });
  if (userPath.length > MAX_PATH_CHARS) {
    throw new PathRefusedError({
      path: userPath,
      reason: `is longer than ${MAX_PATH_CHARS} characters`,
    });
  }
  if (userPath.split('/').some((name) => Buffer.byteLength(name) > MAX_NAME_BYTES)) {
    throw new PathRefusedError({
      path: userPath,
      reason: `has a name longer than ${MAX_NAME_BYTES} bytes`,
    });
  }
  if (userPath.startsWith('~')) {
    throw new PathRefusedError({
      path: userPath,
      reason: 'starts with ~ (home directories are outside the workspace)',
    });
  }
  if (userPath.includes('\\')) {
    throw new PathRefusedError({
      path: userPath,
      reason: 'contains a backslash; use / as the separator',
    });
  }
  if (ENCODED.test(userPath)) {
    throw new PathRefusedError({
      path: userPath,
      reason: 'looks percent-encoded; pass the plain path',
    });
  }
  const folded = userPath.normalize('NFKC');
  if (
    folded !== userPath &&
    (folded.split('/').includes('..') || folded.split('/').length !== userPath.split('/').length)
  ) {
    throw new PathRefusedError({
      path: userPath,
      reason: "uses look-alike characters for '.' or '/'",
    });
  }
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null
    ? (error as { code?: string }).code
    : undefined;
}

/**
 * Resolves a path given by the model or the user against the workspace root and proves it stays
 * inside: `..` that climbs out, absolute paths elsewhere, symlinks (at any depth) that lead
 * outside, symlink loops, dangling symlinks, device files, FIFOs, sockets, over-long names,
 * encoded or look-alike separators and excluded patterns are refused. A path that does not exist
 * yet is accepted when its nearest existing ancestor is inside (for `write`).
 *
 * @throws a {@link PathRefusedError} when the path is refused; the message says why and what to do.
 * @example
 * ```ts
 * const { absolute } = await resolveWorkspacePath('/repo', 'src/index.ts', { exclude: ['.env'] });
 * ```
 */
export async function resolveWorkspacePath(
  cwd: string,
  userPath: string,
  options: ResolveWorkspacePathOptions = {},
): Promise<ResolvedWorkspacePath> {
  checkSyntax(userPath);
  const fs = options.fs ?? nodeWorkspaceFs;
  const root = await fs.realpath(cwd);
  const lexical = resolve(root, userPath);
  if (!isInside(root, lexical)) {
    const reason = isAbsolute(userPath)
      ? 'is an absolute path outside the workspace'
      : 'climbs out of the workspace (..)';
    throw new PathRefusedError({ path: userPath, reason });
  }
  const excluded = createExcludeMatcher(options.exclude);
  if (excluded(toRelative(root, lexical))) {
    throw new PathRefusedError({ path: userPath, reason: 'matches an excluded pattern' });
  }
  let real: string;
  let exists = true;
  try {
    real = await fs.realpath(lexical);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP')
      throw new PathRefusedError({ path: userPath, reason: 'is a symlink loop' });
    if (code === 'ENOTDIR')
      throw new PathRefusedError({
        path: userPath,
        reason: 'goes through a file as if it were a directory',
      });
    if (code !== 'ENOENT')
      throw new PathRefusedError({
        path: userPath,
        reason: `cannot be resolved (${code ?? String(error)})`,
      });
    real = await resolveMissing(fs, root, lexical, userPath);
    exists = false;
  }
  if (!isInside(root, real)) {
    throw new PathRefusedError({
      path: userPath,
      reason: 'is or goes through a symlink that leads outside the workspace',
    });
  }
  const rel = toRelative(root, real);
  if (excluded(rel))
    throw new PathRefusedError({ path: userPath, reason: 'resolves to an excluded path' });
  if (!exists) return { absolute: real, relative: rel, exists };
  const stats = await fs.stat(real);
  if (!stats.isFile() && !stats.isDirectory()) {
    throw new PathRefusedError({
      path: userPath,
      reason: 'is a device, FIFO or socket, not a regular file',
    });
  }
  if (options.kind === 'file' && !stats.isFile()) {
    throw new PathRefusedError({
      path: userPath,
      reason: 'is a directory, not a file; use the list tool for directories',
    });
  }
  if (options.kind === 'directory' && !stats.isDirectory()) {
    throw new PathRefusedError({ path: userPath, reason: 'is a file, not a directory' });
  }
  return { absolute: real, relative: rel, exists, stats };
}

/** For a path that does not exist: refuse dangling symlinks, then return real(ancestor) + rest. */
async function resolveMissing(
  fs: WorkspaceFs,
  root: string,
  lexical: string,
  userPath: string,
): Promise<string> {
  const rest: string[] = [];
  let current = lexical;
  for (;;) {
    try {
      const stats = await fs.lstat(current);
      if (stats.isSymbolicLink()) {
        throw new PathRefusedError({
          path: userPath,
          reason: 'is or goes through a dangling symlink',
        });
      }
      break;
    } catch (error) {
      if (error instanceof PathRefusedError) throw error;
      if (errorCode(error) !== 'ENOENT') {
        throw new PathRefusedError({
          path: userPath,
          reason: `cannot be resolved (${errorCode(error) ?? String(error)})`,
        });
      }
    }
    rest.unshift(current.slice(dirname(current).length).replace(/^\//, ''));
    const parent = dirname(current);
    if (parent === current || !isInside(root, parent)) break;
    current = parent;
  }
  const base = await fs.realpath(current);
  return rest.length === 0 ? base : join(base, ...rest);
}
