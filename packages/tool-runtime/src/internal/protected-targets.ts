import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { isProtectedPath } from '../protected-paths.js';

/**
 * The workspace-relative paths among `paths` (absolute, as the tool declared them) that are
 * protected, judged both as written and after symbolic links are resolved, so `cfg -> .git/config`
 * counts as `.git/config`. Paths outside the workspace are left to the file tools, which refuse them.
 */
export function protectedTargets(
  cwd: string,
  paths: readonly string[],
  patterns: readonly string[],
): string[] {
  const hits: string[] = [];
  for (const path of paths) {
    for (const candidate of new Set([path, realTarget(path)])) {
      const rel = relative(cwd, candidate);
      if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) continue;
      const slashed = rel.split(sep).join('/');
      let hit = false;
      try {
        hit = isProtectedPath(slashed, patterns);
      } catch {
        hit = false;
      }
      if (hit && !hits.includes(slashed)) hits.push(slashed);
    }
  }
  return hits;
}

/** The real path of `path`, or of its nearest existing ancestor plus the rest. */
function realTarget(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (let depth = 0; depth < 256; depth++) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
  return path;
}
