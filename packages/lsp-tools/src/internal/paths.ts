import { realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { LspPathRefusedError } from '../errors.js';

/** True when `path` (absolute) is `root` or lies below it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Resolves a path given by the model or the user against the workspace root, refusing `..`
 * and symlink escapes and paths that do not exist. Returns the absolute real path.
 *
 * @throws an {@link LspPathRefusedError} for a `..` or symlink escape, or a path that does not
 *   exist.
 */
export function resolveInWorkspace(root: string, path: string): string {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new LspPathRefusedError({
      path: String(path),
      reason: 'A file path is required; give it relative to the workspace root',
    });
  }
  const absolute = resolve(root, path);
  if (!isInside(root, absolute)) {
    throw new LspPathRefusedError({
      path,
      reason: `${path} is outside the workspace ${root}; only files inside it can be queried`,
    });
  }
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    throw new LspPathRefusedError({
      path,
      reason: `${path} does not exist in the workspace; check the path (relative to ${root})`,
    });
  }
  if (!isInside(root, real)) {
    throw new LspPathRefusedError({
      path,
      reason: `${path} is a link to ${real}, outside the workspace; only files inside it can be queried`,
    });
  }
  return real;
}

/** The path relative to the root, with `/` separators, for display. */
export function displayPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'build', 'out', 'target', 'vendor']);

/**
 * Finds one file with one of the extensions, breadth first, skipping dependency and build
 * directories and hidden ones; looks at no more than `limit` directory entries.
 */
export async function findWorkspaceFile(
  root: string,
  extensions: readonly string[],
  limit = 5000,
): Promise<string | undefined> {
  const queue = [root];
  let seen = 0;
  while (queue.length > 0 && seen < limit) {
    const directory = queue.shift()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      seen += 1;
      if (entry.name.startsWith('.')) continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) queue.push(path);
      } else if (entry.isFile() && extensions.includes(extname(entry.name).toLowerCase())) {
        return path;
      }
    }
  }
  return undefined;
}
