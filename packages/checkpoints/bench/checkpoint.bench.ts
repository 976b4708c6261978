// Checkpoint and rewind cost on a 10,000-file / 200 MB workspace (built once per run in a temp
// folder, with a 2,000-file ignored node_modules), 10 changed files per step. Every checkpoint is
// of the whole workspace (issue 33 dropped path-scoped ones: they missed changes made outside the
// file tools), so issue 18's absolute figures (≤ 50 ms for a file-tool step, ≤ 200 ms for a rewind)
// no longer describe the design, and absolute figures swing with the machine's load anyway. Judged
// instead, round by round in one process so a busy machine slows both sides alike:
// - ours ÷ the peer (opencode's snapshot: `git add .` + `git write-tree` against a shadow GIT_DIR,
//   two git calls; both see the same 10 changed files, order alternating per round) ≤ 2.5. Ours
//   does the peer's work plus what the peer does not record: an lstat per file for all 12 permission
//   bits (the floor printed below), the files over the size cap, and the change list;
// - a rewind of 10 files ÷ the checkpoint of the same round ≤ 2: a rewind is a checkpoint of the
//   state it replaces plus a diff and the restore of what changed, so it costs at most about two
//   checkpoints (1.16 [1.12, 1.30] at load 4.8; 1.32 [1.18, 1.53] at load 3.5 beside npm test);
// - storage: bytes added per checkpoint ≤ 4 × the changed bytes.
// The checkpoint itself runs while the model answers (the recorder snapshots each step's end in the
// background), so its time is not on the user's path unless the model answers faster.
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
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { judge, printReport } from '../../../scripts/lib/bench-interleave.js';
import { createGitCheckpointStore } from '../src/index.js';

const FILES = 10_000;
const FILE_BYTES = 20_000;
const ROUNDS = 21;
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
const started = performance.now();
await store.checkpoint();
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
const peer: number[] = [];
const rewind: number[] = [];
const walk: number[] = [];
const growth: number[] = [];
let previousBytes = duBytes(join(root, 'ours'));
const peerStep = () => {
  peerGit(['add', '.']);
  peerGit(['write-tree']);
};
const time = async (action: () => unknown): Promise<number> => {
  const began = performance.now();
  await action();
  return performance.now() - began;
};
// Each round: 10 files change → our checkpoint and the peer's snapshot, in alternating order (both
// see exactly those 10); then 10 more change and are rewound to our checkpoint (the peer catches
// up unmeasured); then the lstat floor.
for (let round = 0; round < ROUNDS; round++) {
  changeTenFiles();
  let checkpoint: Awaited<ReturnType<typeof store.checkpoint>> | undefined;
  const ourSide = () =>
    time(async () => {
      checkpoint = await store.checkpoint();
    });
  if (round % 2 === 0) {
    ours.push(await ourSide());
    peer.push(await time(peerStep));
  } else {
    peer.push(await time(peerStep));
    ours.push(await ourSide());
  }
  // The 10 just changed, and after a rewind also the 10 it put back (the store's last snapshot is
  // the state the rewind found; the peer rehashes those 10 as well: their mtimes changed).
  if (checkpoint?.changes.length !== (round === 0 ? 10 : 20))
    throw new Error(`checkpoint saw ${checkpoint?.changes.length} changes`);
  const bytes = duBytes(join(root, 'ours'));
  growth.push(bytes - previousBytes);
  previousBytes = bytes;
  changeTenFiles();
  let restored = 0;
  rewind.push(
    await time(async () => {
      restored = (await store.restore(checkpoint?.id as string)).changes.length;
    }),
  );
  if (restored !== 10) throw new Error(`rewind restored ${restored} files, not 10`);
  peerStep();
  previousBytes = duBytes(join(root, 'ours'));
  walk.push(await time(() => lstatWalk(workspace)));
}
rmSync(root, { recursive: true, force: true });

const bytesPerCheckpoint = median(growth);
const changedBytes = 10 * (FILE_BYTES + 10);
console.log(`first checkpoint (hashes all 200 MB): ${firstMs.toFixed(0)} ms`);
console.log(`per step: ours ${ours.map(round1).join(' ')}`);
console.log(`per step: peer ${peer.map(round1).join(' ')}`);
console.log(`per rewind: ${rewind.map(round1).join(' ')}`);
console.log(`per step: lstat walk ${walk.map(round1).join(' ')}`);
printReport({
  bench: 'checkpoints/checkpoint',
  checks: [
    judge(
      'checkpoint ÷ peer git add + write-tree',
      ours.map((value, i) => value / (peer[i] as number)),
      { atMost: 2.5 },
    ),
    judge(
      'rewind of 10 files ÷ checkpoint',
      rewind.map((value, i) => value / (ours[i] as number)),
      { atMost: 2 },
    ),
    judge('bytes per checkpoint ÷ changed bytes', [bytesPerCheckpoint / changedBytes], {
      atMost: 4,
    }),
  ],
  figures: {
    files: FILES,
    workspaceMB: (FILES * FILE_BYTES) / 1e6,
    load1: Number(loadavg()[0]?.toFixed(2)),
    firstCheckpointMs: Math.round(firstMs),
    checkpointMs: round1(median(ours)),
    peerAddWriteTreeMs: round1(median(peer)),
    rewindMs: round1(median(rewind)),
    ownStoreLstatFloorMs: round1(median(walk)),
    bytesPerCheckpoint,
    changedBytesPerStep: changedBytes,
  },
});
