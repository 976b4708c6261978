import { posix } from 'node:path';
import picomatch from 'picomatch';
import { PathRefusedError } from './errors.js';

/**
 * Workspace-relative globs of files whose content becomes code that an allowed command runs
 * without anyone reading it: git configuration and hooks, and Spine's own configuration and hooks.
 *
 * Why each entry is here (and why some look-alikes are not):
 * - `.git/config`, `.git/config.worktree`, `.git/worktrees/*\/config.worktree`: `core.fsmonitor`,
 *   `core.pager`, `core.sshCommand`, `diff.external`, aliases and filter drivers are commands that
 *   `git status`, `git log` or `git diff` run.
 * - `.git/hooks/**`: run by `git commit`, `git checkout`, `git merge` … .
 * - `.git/commondir`, `.git/worktrees/*\/commondir`: redirect git to another directory's config and
 *   hooks, which would bypass the two entries above.
 * - `.git` (exactly, never what is under it): when `.git` is a `gitdir:` pointer file, rewriting it
 *   points git at a directory whose config the model wrote.
 * - `.git/modules/**\/config`, `.git/modules/**\/hooks/**`: the same for submodules.
 * - `.spine/**`: Spine's project configuration, rules and hooks.
 * - `.husky/**`: the usual `core.hooksPath` target; its scripts are git hooks.
 *
 * Not listed: `.gitmodules` (git refuses `!command` updates from it and only reads URLs and paths),
 * `.gitattributes` and `.git/info/attributes` (they only select drivers that must be defined in a
 * protected config), and build files such as `package.json` or `Makefile` (approving `npm test` or
 * `make` is approving the project's code; approval prompts say so).
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = Object.freeze([
  '.git',
  '.git/config',
  '.git/config.worktree',
  '.git/commondir',
  '.git/hooks/**',
  '.git/worktrees/*/config.worktree',
  '.git/worktrees/*/commondir',
  '.git/modules/**/config',
  '.git/modules/**/hooks/**',
  '.spine/**',
  '.husky/**',
]);

const matcherCache = new Map<string, (path: string) => boolean>();

function matcherFor(patterns: readonly string[]): (path: string) => boolean {
  const key = patterns.join('\0');
  let matcher = matcherCache.get(key);
  if (!matcher) {
    // nocase: on case-insensitive file systems `.GIT/config` is the same file as `.git/config`.
    matcher =
      patterns.length === 0 ? () => false : picomatch([...patterns], { dot: true, nocase: true });
    matcherCache.set(key, matcher);
  }
  return matcher;
}

/**
 * Normalises a workspace-relative path (`./a//b/` → `a/b`) and refuses paths that are not one.
 *
 * @throws a {@link PathRefusedError} when the path is empty, absolute, contains a NUL byte or
 *   leaves the workspace through `..`.
 */
function normaliseRelative(path: string): string {
  if (typeof path !== 'string' || path.length === 0) {
    throw new PathRefusedError({ path: String(path), reason: 'is empty or not a string' });
  }
  if (path.includes('\0')) throw new PathRefusedError({ path, reason: 'contains a NUL byte' });
  if (posix.isAbsolute(path)) {
    throw new PathRefusedError({ path, reason: 'is absolute; pass a workspace-relative path' });
  }
  const normal = posix.normalize(path).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) {
    throw new PathRefusedError({ path, reason: 'leaves the workspace' });
  }
  return normal;
}

/**
 * Tells whether a workspace-relative path is protected: writing it needs a person's approval in the
 * file tools, and the shell sandbox binds it read-only.
 *
 * Pass the path after symlinks are resolved (as {@link resolveWorkspacePath} returns it), so that a
 * link such as `cfg -> .git/config` is judged by its target. A pattern `dir/**` also matches `dir`
 * itself (removing or renaming the directory is a write to everything under it).
 *
 * @param workspaceRelativePath - Path relative to the workspace root, `/`-separated.
 * @param patterns - Globs to test against; defaults to {@link DEFAULT_PROTECTED_PATHS}.
 * @returns `true` when the path matches one of the patterns (case-insensitively).
 * @throws a {@link PathRefusedError} when the path is empty, absolute, contains NUL or escapes with
 *   `..`.
 * @example
 * ```ts
 * isProtectedPath('.git/hooks/pre-commit'); // true
 * isProtectedPath('src/index.ts'); // false
 * isProtectedPath('secrets/x', ['secrets/**']); // true
 * ```
 */
export function isProtectedPath(
  workspaceRelativePath: string,
  patterns: readonly string[] = DEFAULT_PROTECTED_PATHS,
): boolean {
  const normal = normaliseRelative(workspaceRelativePath);
  if (normal === '.') return false;
  return matcherFor(patterns)(normal);
}
