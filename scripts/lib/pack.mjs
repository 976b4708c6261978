// Packs every published package of the repository (`packages/*`, `apps/*`, not `private`) with
// `npm pack`, as a release would, for the scripts that install the tarballs into consumer projects.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Packs each published package into `destination`.
 * @param {string} repo the repository root
 * @param {string} destination an existing directory for the tarballs
 * @returns {{ pkg: Record<string, any>, dir: string, tarball: string }[]} in folder order
 */
export function packPublished(repo, destination) {
  const packed = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(repo, group))) {
      const dir = join(repo, group, name);
      let pkg;
      try {
        pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      if (pkg.private) continue;
      const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], {
        cwd: dir,
        encoding: 'utf8',
      });
      packed.push({ pkg, dir, tarball: join(destination, out.trim().split('\n').pop()) });
    }
  }
  return packed;
}
