// Runs the peer comparisons: installs the peers' published packages into this folder (its own
// package.json, not a workspace of the repository, so `npm install`/`npm test`/CI never fetch
// them), then runs each comparison from the repository root with tsx (Spine is taken from its
// TypeScript source). Usage: `node bench/peers/run.mjs` (or `npm run bench` inside bench/peers);
// SPINE_PEER_SIZES=10000 limits the sizes. Exits non-zero when a comparison falls short.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const pinned = '@mariozechner/pi-coding-agent';

if (!existsSync(join(here, 'node_modules', pinned, 'package.json'))) {
  console.log(`installing ${pinned} into ${relative(root, here)}/node_modules`);
  const install = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'],
    { cwd: here, stdio: 'inherit' },
  );
  if (install.status !== 0) process.exit(install.status ?? 1);
}

let failed = false;
for (const bench of ['append-compare.ts']) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, bench)], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
