// Checkpoint and rewind cost on a 10,000-file / 200 MB workspace (built once per run in a temp
// folder, with a 2,000-file ignored node_modules), 10 changed files per step. In the same run:
// the peer figure (opencode's snapshot: `git add .` + `git write-tree` against a shadow GIT_DIR,
// two git calls per step), and the floor of a blob store of our own (lstat every file, no hashing).
// Each figure is the median and minimum of ROUNDS steps; storage growth is bytes per checkpoint.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitCheckpointStore } from '../src/index.js';

const FILES = 10_000;
const FILE_BYTES = 20_000;
const ROUNDS = 15;
const root = mkdtempSync(join(tmpdir(), 'spine-ckpt-bench-'));
const workspace = join(root, 'ws');
mkdirSync(workspace);
writeFileSync(join(workspace, '.gitignore'), 'node_modules/\n');
const noise = randomBytes(FILE_BYTES * 4);
const pathOf = (index: number) =>
  join(workspace, `d${index % 100}`, `s${Math.floor(index / 100) % 10}`, `f${index}.txt`);
for (let index = 0; index < FILES; index++) {
  const path = pathOf(index);
  if (index % 100 < 1) mkdirSync(join(path, '..'), { recursive: true });
  mkdirSync(join(path, '..'), { recursive: true });
  const start = (index * 7919) % (noise.length - FILE_BYTES);
  writeFileSync(path, noise.subarray(start, start + FILE_BYTES));
}
for (let index = 0; index < 2_000; index++) {
  const folder = join(workspace, 'node_modules', `p${index % 50}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `m${index}.js`), `module.exports = ${index};\n`);
}

function duBytes(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] as number;
const round1 = (value: number) => +value.toFixed(1);

let step = 0;
/** Appends to 10 files; returns their workspace-relative paths. */
function changeTenFiles(): string[] {
  step++;
  const paths: string[] = [];
  for (let k = 0; k < 10; k++) {
    const path = pathOf((step * 37 + k * 1009) % FILES);
    appendFileSync(path, `step ${step}\n`);
    paths.push(path.slice(workspace.length + 1));
  }
  return paths;
}

// Ours.
const store = createGitCheckpointStore({ workspace, directory: join(root, 'ours') });
let started = performance.now();
const first = await store.checkpoint();
const firstMs = performance.now() - started;

// Peer: opencode-style shadow repository, same workspace.
const peerDir = join(root, 'peer');
const peerEnv = { ...process.env, GIT_DIR: peerDir, GIT_WORK_TREE: workspace };
const peerGit = (args: string[]) =>
  execFileSync('git', args, { cwd: workspace, env: peerEnv, encoding: 'utf8' });
peerGit(['init', '-q']);
peerGit(['add', '.']);
peerGit(['write-tree']);

// Floor of an own blob store: lstat every non-ignored file (no hashing, no writing).
function lstatWalk(folder: string): number {
  let count = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue;
    const path = join(folder, entry.name);
    lstatSync(path);
    count += entry.isDirectory() ? lstatWalk(path) : 1;
  }
  return count;
}

const ours: number[] = [];
const scoped: number[] = [];
const peer: number[] = [];
const walk: number[] = [];
const growth: number[] = [];
const changed: number[] = [];
let previousBytes = duBytes(join(root, 'ours'));
let last = first.id;
const peerStep = () => {
  peerGit(['add', '.']);
  peerGit(['write-tree']);
};
// Each round: 10 files change → our full-scan checkpoint and the peer's snapshot (both see exactly
// those 10); 10 more change → our known-paths checkpoint (the peer catches up unmeasured).
for (let round = 0; round < ROUNDS; round++) {
  changeTenFiles();
  started = performance.now();
  const checkpoint = await store.checkpoint();
  ours.push(performance.now() - started);
  changed.push(checkpoint.changes.length);
  started = performance.now();
  peerStep();
  peer.push(performance.now() - started);
  let bytes = duBytes(join(root, 'ours'));
  growth.push(bytes - previousBytes);
  previousBytes = bytes;
  const paths = changeTenFiles();
  started = performance.now();
  const known = await store.checkpoint({ paths });
  scoped.push(performance.now() - started);
  if (known.changes.length !== 10) throw new Error(`scoped checkpoint saw ${known.changes.length}`);
  last = known.id;
  peerStep();
  bytes = duBytes(join(root, 'ours'));
  growth.push(bytes - previousBytes);
  previousBytes = bytes;
  started = performance.now();
  lstatWalk(workspace);
  walk.push(performance.now() - started);
}

// Rewind: 10 files changed since the last checkpoint, put back.
const rewind: number[] = [];
for (let round = 0; round < 7; round++) {
  changeTenFiles();
  started = performance.now();
  const result = await store.restore(last);
  rewind.push(performance.now() - started);
  if (result.changes.length !== 10)
    throw new Error(`rewind restored ${result.changes.length} files`);
}
rmSync(root, { recursive: true, force: true });

const checkpointMs = median(ours);
const rewindMs = median(rewind);
const bytesPerCheckpoint = median(growth);
const changedBytes = 10 * (FILE_BYTES + 10);
console.log(`first checkpoint (hashes all 200 MB): ${firstMs.toFixed(0)} ms`);
console.log(`per step: ours, full scan ${ours.map(round1).join(' ')}`);
console.log(`per step: ours, known paths ${scoped.map(round1).join(' ')}`);
console.log(`per step: peer ${peer.map(round1).join(' ')}`);
console.log(`per step: lstat walk ${walk.map(round1).join(' ')}`);
const pass =
  Math.min(...scoped) <= 50 && Math.min(...rewind) <= 200 && bytesPerCheckpoint <= 4 * changedBytes;
console.log(
  JSON.stringify({
    bench: 'checkpoints/checkpoint',
    files: FILES,
    workspaceMB: (FILES * FILE_BYTES) / 1e6,
    changedFilesPerStep: median(changed),
    firstCheckpointMs: Math.round(firstMs),
    fileToolStepMs: round1(median(scoped)),
    fileToolStepMinMs: round1(Math.min(...scoped)),
    fullScanStepMs: round1(checkpointMs),
    fullScanStepMinMs: round1(Math.min(...ours)),
    peerAddWriteTreeMs: round1(median(peer)),
    peerMinMs: round1(Math.min(...peer)),
    fullScanVsPeer: +(checkpointMs / median(peer)).toFixed(2),
    fileToolStepVsPeer: +(median(scoped) / median(peer)).toFixed(2),
    ownStoreLstatFloorMs: round1(median(walk)),
    bytesPerCheckpoint,
    changedBytesPerStep: changedBytes,
    rewindMs: round1(rewindMs),
    rewindMinMs: round1(Math.min(...rewind)),
    targets: {
      fileToolStepMinMs: '<= 50',
      rewindMinMs: '<= 200',
      bytesPerCheckpoint: '<= 4x changed',
    },
    pass,
  }),
);
