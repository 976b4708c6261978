import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { createExcludeMatcher } from './path-guard.js';

/** One `@path` completion candidate: path and kind only, never content. */
export interface FileSearchResult {
  /** Path relative to the workspace, `/`-separated; directories end with `/`. */
  path: string;
  /** Whether the entry is a file or a directory. */
  kind: 'file' | 'directory';
}

/** Options of {@link searchWorkspaceFiles}. */
export interface FileSearchOptions {
  /** Glob patterns relative to the workspace (`node_modules/**`) never listed. */
  exclude?: readonly string[];
  /** At most this many results (default 50). */
  limit?: number;
  /** At most this many directory entries examined (default 20,000). */
  maxEntries?: number;
}

/**
 * Lists workspace files whose relative path contains `query` (case-insensitive), for `@path`
 * completion. Stays inside the workspace: a query with `..` or an absolute path returns
 * nothing, and symlinks that resolve outside the workspace are skipped.
 *
 * @example
 * ```ts
 * searchWorkspaceFiles(cwd, 'src/ap', { exclude: ['node_modules/**'] }); // [{ path: 'src/app.ts', kind: 'file' }]
 * ```
 */
export function searchWorkspaceFiles(
  root: string,
  query: string,
  options: FileSearchOptions = {},
): FileSearchResult[] {
  const normalized = query.replaceAll('\\', '/');
  if (isAbsolute(normalized) || normalized.split('/').includes('..')) return [];
  const realRoot = realpathSync(root);
  const limit = options.limit ?? 50;
  let budget = options.maxEntries ?? 20_000;
  // The same exclude semantics as the workspace tools.
  const isExcluded = createExcludeMatcher(options.exclude ?? []);
  const needle = normalized.toLowerCase();
  const prefix: FileSearchResult[] = [];
  const contains: FileSearchResult[] = [];
  const queue: string[] = [''];
  while (queue.length > 0 && budget > 0 && prefix.length < limit) {
    const dir = queue.shift()!;
    let entries: string[];
    try {
      entries = readdirSync(join(realRoot, dir)).sort();
    } catch {
      continue;
    }
    for (const name of entries) {
      if (--budget < 0) break;
      const path = dir ? `${dir}/${name}` : name;
      if (isExcluded(path)) continue;
      const kind = kindInside(realRoot, path);
      if (!kind) continue;
      if (kind === 'directory') queue.push(path);
      const shown = kind === 'directory' ? `${path}/` : path;
      const lower = shown.toLowerCase();
      if (lower.startsWith(needle)) prefix.push({ path: shown, kind });
      else if (lower.includes(needle)) contains.push({ path: shown, kind });
    }
  }
  return [...prefix, ...contains].slice(0, limit);
}

/** The kind of a workspace entry, or undefined when it is a symlink escaping the workspace. */
function kindInside(root: string, path: string): FileSearchResult['kind'] | undefined {
  const full = join(root, path);
  try {
    const stat = lstatSync(full);
    if (!stat.isSymbolicLink()) return stat.isDirectory() ? 'directory' : 'file';
    const target = realpathSync(full);
    const rel = relative(root, target);
    if (rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return undefined;
    // A symlink to a directory inside the workspace is offered as a file to avoid cycles.
    return 'file';
  } catch {
    return undefined;
  }
}

/**
 * Checks one `@path` reference: `refused` for `..`, absolute paths, excluded paths and symlinks
 * that lead outside the workspace; `missing` when nothing is there; else `ok`.
 */
export function checkWorkspaceReference(
  root: string,
  reference: string,
  options: { exclude?: readonly string[] } = {},
): 'ok' | 'missing' | 'refused' {
  const path = reference.replaceAll('\\', '/').replace(/\/+$/, '');
  if (path === '' || isAbsolute(path) || path.split('/').includes('..')) return 'refused';
  if (createExcludeMatcher(options.exclude ?? [])(path)) return 'refused';
  const realRoot = realpathSync(root);
  const full = join(realRoot, path);
  if (!existsSync(full)) return 'missing';
  const rel = relative(realRoot, realpathSync(full));
  return rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel) ? 'refused' : 'ok';
}

/** Finds `@path` references in a line of input (`@src/a.ts`), in order. */
export function fileReferencesOf(line: string): string[] {
  return [...line.matchAll(/(?:^|\s)@([^\s@]+)/g)].map((match) => match[1]!);
}
