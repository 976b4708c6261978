import { chmodSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Home-relative locations of credentials and shell histories that sandboxed commands (and MCP
 * stdio servers, which run under the same sandbox) do not see: each existing directory is covered
 * by an empty read-only directory, each existing file by an empty read-only file. Turn it off with the
 * `credentialPaths: false` sandbox option (the CLI's user-level `shell.allowCredentials`).
 *
 * - SSH keys and agent configuration: `.ssh`.
 * - Cloud and cluster credentials: `.aws`, `.config/gcloud`, `.azure`, `.kube`, `.oci`.
 * - Login and token files: `.netrc`, `.git-credentials`, `.docker/config.json`, `.npmrc`,
 *   `.pypirc`, `.config/gh`, `.cargo/credentials.toml`, `.cargo/credentials`.
 * - Agent credentials: `.claude.json` (MCP server environments and headers),
 *   `.config/spine/mcp-oauth` (MCP OAuth tokens; the CLI adds its own location when
 *   `SPINE_CONFIG_HOME` moves it).
 * - Keyrings and key stores: `.gnupg`, `.password-store`, `.local/share/keyrings`,
 *   `Library/Keychains`.
 * - Shell and REPL histories (often holding pasted tokens): `.bash_history`, `.zsh_history`,
 *   `.history`, `.sh_history`, `.local/share/fish/fish_history`, `.python_history`,
 *   `.node_repl_history`, `.psql_history`, `.mysql_history`.
 */
export const DEFAULT_CREDENTIAL_PATHS: readonly string[] = Object.freeze([
  '.ssh',
  '.aws',
  '.config/gcloud',
  '.azure',
  '.kube',
  '.oci',
  '.netrc',
  '.git-credentials',
  '.docker/config.json',
  '.npmrc',
  '.pypirc',
  '.config/gh',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.claude.json',
  '.config/spine/mcp-oauth',
  '.gnupg',
  '.password-store',
  '.local/share/keyrings',
  'Library/Keychains',
  '.bash_history',
  '.zsh_history',
  '.history',
  '.sh_history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
]);

let empty: string | undefined;

// An empty read-only file to bind over credential files. (Not /dev/null: device nodes cannot be
// opened on mounts made in a user namespace, so a read would fail with EACCES, and programs such
// as npm treat an unreadable ~/.npmrc as an error rather than as no settings.)
function emptyFile(): string {
  if (empty) return empty;
  const dir = mkdtempSync(join(tmpdir(), 'spine-empty-'));
  const file = join(dir, 'empty');
  writeFileSync(file, '');
  chmodSync(file, 0o444);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  empty = file;
  return file;
}

/**
 * The bwrap arguments that hide `paths` (absolute, or relative to `home`): an existing directory
 * becomes an empty read-only tmpfs, an existing file (or anything else) an empty read-only file; a path that
 * does not exist is skipped (a read-only file system cannot gain it). Symbolic links are followed:
 * the target is covered.
 */
export function credentialMounts(
  paths: readonly string[] = DEFAULT_CREDENTIAL_PATHS,
  home: string = homedir(),
): string[] {
  const args: string[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    let real: string;
    let directory: boolean;
    try {
      // This runs twice per sandboxed command (its own sandbox and the spare parked for the
      // next): most paths are missing, so ask without an exception first (an exception each
      // cost ~50 µs, 1.5 ms a command), and resolve links with one realpath(3) call.
      const stats = statSync(isAbsolute(path) ? path : join(home, path), { throwIfNoEntry: false });
      if (!stats) continue;
      // bwrap cannot mount on a symbolic link: cover what it points to (the link then leads there).
      real = realpathSync.native(isAbsolute(path) ? path : join(home, path));
      directory = stats.isDirectory();
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    if (directory) args.push('--tmpfs', real, '--remount-ro', real);
    else args.push('--ro-bind', emptyFile(), real);
  }
  return args;
}
