// Opening sessions that outgrow memory (issue 20), on realistic content (code, tool output, JSON,
// Unicode). Targets, each against figures measured in this run and judged on the 90% interval of
// a median over rounds (scripts/lib/bench-interleave.ts):
// - a lazy open (snapshot + tail) of a session whose surface is 2,000 events is flat in log length:
//   per round (the sizes interleaved, order alternating) the largest (100k, or 1M) within 1.5 ×
//   the 10k open in wall time; the largest ≤ 100 ms of CPU time (an absolute wall-clock
//   figure cannot hold beside other work; the wall median is reported); heap ≤ 64 MB + 2 × surface;
// - opening without a snapshot (first open of an old log; the snapshot is written then)
//   ≤ 1.0 × read + split + JSON.parse of the same file (CPU time: the machine is shared).
// SPINE_BENCH_1M=1 adds the 1,000,000-event (~1.3 GB) case (generated into /tmp, deleted after).
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  type BenchCheck,
  judge,
  median,
  printReport,
  roundOrder,
} from '../../../scripts/lib/bench-interleave.js';
import { createJsonlStore, Session } from '../src/index.js';
import { buildSession } from './build-session.js';

setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-snapshot-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const store = createJsonlStore({ dir, fsync: 'never' });
const sizes = [10_000, 100_000, ...(process.env.SPINE_BENCH_1M ? [1_000_000] : [])];
// Rounds of lazy opens, every size once per round (about 0.2 s a round). 41, not 15: beside
// `npm test` at load 8 the wall flat ratio of 15 rounds had the median 1.30 but the interval
// [0.94, 1.93] (from the 4th to the 12th value); with 41 it runs from the 15th to the 27th.
const OPEN_ROUNDS = 41;

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

/** Wall and CPU milliseconds of the baseline: read + split + JSON.parse, nothing kept. */
function readSplitParse(path: string): { wall: number; cpu: number } {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const lines = readFileSync(path, 'utf8').split('\n');
  let parsed = 0;
  for (const line of lines) if (line.length > 0 && JSON.parse(line)) parsed++;
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - start;
  if (parsed === 0) throw new Error('nothing parsed');
  return { wall: elapsed, cpu: (used.user + used.system) / 1000 };
}

const rows: Array<{
  events: number;
  fileMB: number;
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
  await lazyOpenMs(id); // warm-up, and the snapshot is in place
  const heap = await lazyHeapBytes(id);
  rows.push({
    events: count,
    fileMB: +(fileBytes / 1e6).toFixed(1),
    heapMB: +(heap / 1e6).toFixed(1),
    surfaceMB: +(surfaceBytes / 1e6).toFixed(2),
    heapLimitMB: +((64 * 2 ** 20 + 2 * surfaceBytes) / 1e6).toFixed(1),
  });
}

// The lazy opens of every size, interleaved round by round (the order alternating), so a busy
// moment slows the sizes alike. Each round's flat ratio is its largest size ÷ its smallest: not
// slowest ÷ fastest, which is ≥ 1 by construction and grows with the noise alone (beside npm test
// two sizes of equal median, 131 and 136 ms, gave a median max ÷ min of 1.37).
const opens = sizes.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
for (let round = 0; round < OPEN_ROUNDS; round++) {
  for (const index of roundOrder(
    sizes.map((_, i) => i),
    round,
  )) {
    const { wall, cpu } = await lazyOpenMs(`s${sizes[index]}`);
    opens[index]?.wall.push(wall);
    opens[index]?.cpu.push(cpu);
  }
}
const smallestOpens = opens[0] as (typeof opens)[number];
const largestOpens = opens[opens.length - 1] as (typeof opens)[number];
const flatRatios = (pick: 'wall' | 'cpu') =>
  largestOpens[pick].map((largest, round) => largest / (smallestOpens[pick][round] as number));
for (const [index, count] of sizes.entries()) {
  const side = opens[index] as (typeof opens)[number];
  console.log(
    `lazy open of ${count}: median ${median(side.wall).toFixed(1)} ms (CPU ${median(side.cpu).toFixed(1)} ms), heap ${rows[index]?.heapMB} MB (limit ${rows[index]?.heapLimitMB} MB)`,
  );
}
for (const row of rows)
  if (row.events !== 100_000) rmSync(join(dir, `s${row.events}.jsonl`), { force: true });

// First open of a log without a snapshot: lazy open streams it and builds the state; the
// snapshot is written right after it returns (close waits for it).
const oldPath = join(dir, 's100000.jsonl');
const baseline: Array<{ wall: number; cpu: number }> = [];
const firstOpen: Array<{ wall: number; cpu: number }> = [];
for (let round = 0; round < 7; round++) {
  gc();
  baseline.push(readSplitParse(oldPath));
  rmSync(`${oldPath}.snapshot`, { force: true });
  gc();
  const start = performance.now();
  const cpu = process.cpuUsage();
  const session = await Session.open({ store, id: 's100000', history: 'lazy', snapshots: false });
  const used = process.cpuUsage(cpu);
  firstOpen.push({ wall: performance.now() - start, cpu: (used.user + used.system) / 1000 });
  await session.close();
  if (!existsSync(`${oldPath}.snapshot`)) throw new Error('the first open wrote no snapshot');
  console.log(
    `round ${round + 1}/7: read+split+JSON.parse ${baseline[round]?.wall.toFixed(0)} ms (CPU ${baseline[round]?.cpu.toFixed(0)}), open without snapshot ${firstOpen[round]?.wall.toFixed(0)} ms (CPU ${firstOpen[round]?.cpu.toFixed(0)})`,
  );
}
const checks = [
  judge(`lazy open, ${sizes.at(-1)} ÷ ${sizes[0]} events (wall)`, flatRatios('wall'), {
    atMost: 1.5,
  }),
  judge(`lazy open of ${sizes.at(-1)} events, CPU ms`, largestOpens.cpu, { atMost: 100 }),
  judge(
    'open without snapshot ÷ read+split+JSON.parse (CPU)',
    firstOpen.map((s, round) => s.cpu / (baseline[round]?.cpu ?? Number.NaN)),
    { atMost: 1.0 },
  ),
];
const heapOk = rows.every((row) => row.heapMB <= row.heapLimitMB);
// The heap check has no interval: one measurement per size after a forced GC.
const heapMB = Math.max(...rows.map((row) => row.heapMB));
checks.push({
  name: 'lazy open heap MB within 64 MB + 2 × surface',
  figure: heapMB,
  interval: [heapMB, heapMB],
  level: 1,
  target: `<= ${Math.min(...rows.map((row) => row.heapLimitMB))}`,
  rounds: 1,
  pass: heapOk,
});
const flatWall = checks[0] as BenchCheck;
const flatCpu = judge('flat, CPU', flatRatios('cpu'), { atMost: 1.5 });
printReport({
  bench: 'session-log/snapshot-open',
  checks,
  figures: {
    sizes: rows.map((row, index) => ({
      ...row,
      openMs: +median(opens[index]?.wall ?? []).toFixed(1),
      openCpuMs: +median(opens[index]?.cpu ?? []).toFixed(1),
    })),
    rounds: OPEN_ROUNDS,
    flatRatio: flatWall.figure,
    flatRatio90: flatWall.interval,
    flatCpuRatio: flatCpu.figure,
    flatCpuRatio90: flatCpu.interval,
    noSnapshotOpenMs: +Math.min(...firstOpen.map((s) => s.wall)).toFixed(1),
    readSplitParseMs: +Math.min(...baseline.map((s) => s.wall)).toFixed(1),
    noSnapshotCpuMs: +median(firstOpen.map((s) => s.cpu)).toFixed(1),
    readSplitParseCpuMs: +median(baseline.map((s) => s.cpu)).toFixed(1),
    noSnapshotBaseline:
      'readFileSync(utf8) + split at newlines + JSON.parse of every line, values dropped at once: no events kept, no structural or seq checks, no surface/projection state, no snapshot (the open does all of these and takes the lock; the snapshot is written right after open returns, which this figure leaves out: close waits for it and the bench checks the file)',
    load: +(loadavg()[0] as number).toFixed(1),
  },
});
