// Opening sessions that outgrow memory (issue 20), on realistic content (code, tool output, JSON,
// Unicode). Targets, each against figures measured in this run:
// - a lazy open (snapshot + tail) of a session whose surface is 2,000 events is flat in log length:
//   the slowest of 10k / 100k (/ 1M) within 1.5 × the fastest, ≤ 100 ms, and heap ≤ 64 MB + 2 × surface;
// - opening without a snapshot (first open of an old log; the snapshot is written then)
//   ≤ 1.0 × read + split + JSON.parse of the same file.
// SPINE_BENCH_1M=1 adds the 1,000,000-event (~1.3 GB) case (generated into /tmp, deleted after).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createJsonlStore, Session } from '../src/index.js';
import { buildSession } from './build-session.js';

setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-snapshot-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const store = createJsonlStore({ dir, fsync: 'never' });
const sizes = [10_000, 100_000, ...(process.env.SPINE_BENCH_1M ? [1_000_000] : [])];

/** Wall and CPU milliseconds of a lazy open (CPU time stays meaningful on a loaded machine). */
async function lazyOpenMs(id: string): Promise<{ wall: number; cpu: number }> {
  gc();
  const start = performance.now();
  const cpu = process.cpuUsage();
  const session = await Session.open({ store, id, history: 'lazy', snapshots: false });
  session.deriveMessages();
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - start;
  await session.close();
  return { wall: elapsed, cpu: (used.user + used.system) / 1000 };
}

async function lazyHeapBytes(id: string): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  const session = await Session.open({ store, id, history: 'lazy', snapshots: false });
  session.deriveMessages();
  gc();
  const after = process.memoryUsage().heapUsed;
  await session.close();
  return after - before;
}

function readSplitParse(path: string): number {
  const start = performance.now();
  const lines = readFileSync(path, 'utf8').split('\n');
  let parsed = 0;
  for (const line of lines) if (line.length > 0 && JSON.parse(line)) parsed++;
  const elapsed = performance.now() - start;
  if (parsed === 0) throw new Error('nothing parsed');
  return elapsed;
}

const rows: Array<{
  events: number;
  fileMB: number;
  openMs: number;
  openCpuMs: number;
  heapMB: number;
  surfaceMB: number;
  heapLimitMB: number;
}> = [];
for (const count of sizes) {
  const id = `s${count}`;
  const built = performance.now();
  const { surfaceBytes } = await buildSession(store, id, count);
  const fileBytes = statSync(join(dir, `${id}.jsonl`)).size;
  console.log(
    `built ${count} events (${(fileBytes / 1e6).toFixed(0)} MB, surface ${(surfaceBytes / 1e6).toFixed(1)} MB) in ${((performance.now() - built) / 1000).toFixed(1)} s`,
  );
  await lazyOpenMs(id); // warm-up
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  for (let round = 0; round < 7; round++) {
    const { wall, cpu } = await lazyOpenMs(id);
    samples.push(wall);
    cpuSamples.push(cpu);
  }
  samples.sort((a, b) => a - b);
  cpuSamples.sort((a, b) => a - b);
  const heap = await lazyHeapBytes(id);
  const row = {
    events: count,
    fileMB: +(fileBytes / 1e6).toFixed(1),
    openMs: +(samples[3] as number).toFixed(1),
    openCpuMs: +(cpuSamples[3] as number).toFixed(1),
    heapMB: +(heap / 1e6).toFixed(1),
    surfaceMB: +(surfaceBytes / 1e6).toFixed(2),
    heapLimitMB: +((64 * 2 ** 20 + 2 * surfaceBytes) / 1e6).toFixed(1),
  };
  rows.push(row);
  console.log(
    `lazy open of ${count}: median ${row.openMs} ms (CPU ${row.openCpuMs} ms), heap ${row.heapMB} MB (limit ${row.heapLimitMB} MB)`,
  );
  if (count !== 100_000) rmSync(join(dir, `${id}.jsonl`), { force: true });
}

// First open of a log without a snapshot: lazy open reads it whole, builds the state, writes one.
const oldPath = join(dir, 's100000.jsonl');
const baselineMs: number[] = [];
const firstOpenMs: number[] = [];
for (let round = 0; round < 5; round++) {
  gc();
  baselineMs.push(readSplitParse(oldPath));
  rmSync(`${oldPath}.snapshot`, { force: true });
  gc();
  const start = performance.now();
  const session = await Session.open({ store, id: 's100000', history: 'lazy', snapshots: false });
  firstOpenMs.push(performance.now() - start);
  await session.close();
  console.log(
    `round ${round + 1}/5: read+split+JSON.parse ${baselineMs[round]?.toFixed(0)} ms, open without snapshot ${firstOpenMs[round]?.toFixed(0)} ms`,
  );
}
const noSnapshotRatio = Math.min(...firstOpenMs) / Math.min(...baselineMs);
const opens = rows.map((row) => row.openMs);
const flatRatio = Math.max(...opens) / Math.min(...opens);
const cpuOpens = rows.map((row) => row.openCpuMs);
const flatCpuRatio = Math.max(...cpuOpens) / Math.min(...cpuOpens);
const largest = rows[rows.length - 1] as (typeof rows)[number];
const heapOk = rows.every((row) => row.heapMB <= row.heapLimitMB);
const pass = flatRatio <= 1.5 && largest.openMs <= 100 && heapOk && noSnapshotRatio <= 1.0;
console.log(
  JSON.stringify({
    bench: 'session-log/snapshot-open',
    sizes: rows,
    flatRatio: +flatRatio.toFixed(2),
    flatCpuRatio: +flatCpuRatio.toFixed(2),
    noSnapshotOpenMs: +Math.min(...firstOpenMs).toFixed(1),
    readSplitParseMs: +Math.min(...baselineMs).toFixed(1),
    noSnapshotRatio: +noSnapshotRatio.toFixed(2),
    targets: {
      flatRatio: '<= 1.5',
      openMs: '<= 100',
      heapMB: '<= heapLimitMB',
      noSnapshotRatio: '<= 1.0',
    },
    pass,
  }),
);
