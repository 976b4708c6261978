// The tamper-evident chain (issue 20), on realistic content (code, tool output, JSON, Unicode):
// - append with the chain on ≥ 1.0 × JSON.stringify + writeSync per event of the same events;
//   the chain's own cost is printed as chain-on vs chain-off appends;
// - verifyJsonlLog ≥ 200 MB/s on a ~500 MB log (SPINE_BENCH_1M=1: a 1,000,000-event ~1 GB log;
//   VERIFY_EVENTS=n for a quick run on a smaller one).
// What the append baseline is: each event built as Session builds it, JSON.stringify'd and
// written with its own writeSync (one syscall per event), as a naive logger would. Session.append
// validates, keeps the event in memory, encodes it into a shared arena, seals it with the chain
// and writes a group of lines per writeSync: part of its lead is fewer syscalls, not encoding.
// Figures are medians over interleaved rounds, wall and CPU time (CPU time stays meaningful when
// other processes share the cores).
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlStore, Session, verifyJsonlLog } from '../src/index.js';
import { buildSession } from './build-session.js';
import { assistantText, toolText, userText } from './corpus.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-bench-chain-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const EVENTS = 10_000;
const ROUNDS = 7;
const bodies = Array.from({ length: EVENTS }, (_, i) =>
  i % 3 === 0
    ? { content: userText(), source: 'user' }
    : { content: i % 3 === 1 ? toolText() : assistantText(), source: 'tool-output' },
);

interface Timing {
  wall: number;
  cpu: number;
}

async function appendMs(round: number, chain: boolean): Promise<Timing> {
  const store = createJsonlStore({ dir, fsync: 'never', chain });
  const start = performance.now();
  const cpu = process.cpuUsage();
  const session = await Session.create({ store, id: `a${round}-${chain}`, snapshots: false });
  for (const body of bodies) session.append('user/message', body, { surfaceOp: { op: 'append' } });
  await session.close();
  return { wall: performance.now() - start, cpu: cpuMs(cpu) };
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function perEventMs(round: number): Timing {
  const path = join(dir, `raw${round}.jsonl`);
  const fd = openSync(path, 'w');
  const start = performance.now();
  const cpu = process.cpuUsage();
  let seq = 1;
  for (const body of bodies) {
    const event = {
      seq: ++seq,
      type: 'user/message',
      at: new Date().toISOString(),
      body,
      surfaceOp: { op: 'append' },
    };
    writeSync(fd, `${JSON.stringify(event)}\n`);
  }
  const elapsed = { wall: performance.now() - start, cpu: cpuMs(cpu) };
  closeSync(fd);
  rmSync(path);
  return elapsed;
}

const on: Timing[] = [];
const off: Timing[] = [];
const raw: Timing[] = [];
for (let round = 0; round < ROUNDS; round++) {
  raw.push(perEventMs(round));
  on.push(await appendMs(round, true));
  off.push(await appendMs(round, false));
  console.log(
    `round ${round + 1}/${ROUNDS}: stringify+writeSync ${raw[round]?.wall.toFixed(0)} ms, append chain on ${on[round]?.wall.toFixed(0)} ms, off ${off[round]?.wall.toFixed(0)} ms`,
  );
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const ratios = (a: Timing[], b: Timing[], key: keyof Timing): number[] =>
  a.map((timing, i) => timing[key] / (b[i] as Timing)[key]);
// Per-round ratios (the rounds interleave, so each compares runs made under the same load).
const appendRatio = median(ratios(raw, on, 'wall'));
const appendRatioCpu = median(ratios(raw, on, 'cpu'));
const chainCost = median(ratios(on, off, 'cpu')) - 1;

const count = process.env.SPINE_BENCH_1M ? 1_000_000 : Number(process.env.VERIFY_EVENTS) || 500_000;
await buildSession(createJsonlStore({ dir, fsync: 'never' }), 'log', count);
const path = join(dir, 'log.jsonl');
const bytes = statSync(path).size;
const rates: number[] = [];
const cpuRates: number[] = [];
for (let round = 0; round < 3; round++) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const result = verifyJsonlLog(path);
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  // CPU time stays meaningful when other processes share the cores (wall time does not).
  cpuRates.push(bytes / 1e6 / ((used.user + used.system) / 1e6));
  if (!result.ok || result.events < count)
    throw new Error(`verify failed: ${JSON.stringify(result.problem)}`);
  rates.push(bytes / 1e6 / seconds);
  console.log(
    `verify ${(bytes / 1e6).toFixed(0)} MB (${result.events} events): ${rates[round]?.toFixed(0)} MB/s`,
  );
}
const verifyMBps = median(rates);
const pass = appendRatio >= 1.0 && verifyMBps >= 200;
console.log(
  JSON.stringify({
    bench: 'session-log/chain',
    events: EVENTS,
    comparison:
      'Session.append with the chain on vs per-event JSON.stringify + writeSync (one syscall per event); append writes groups of lines per writeSync',
    appendChainOnMs: +median(on.map((t) => t.wall)).toFixed(1),
    appendChainOffMs: +median(off.map((t) => t.wall)).toFixed(1),
    perEventStringifyWriteSyncMs: +median(raw.map((t) => t.wall)).toFixed(1),
    appendRatio: +appendRatio.toFixed(2),
    appendRatioCpu: +appendRatioCpu.toFixed(2),
    chainCostPercent: +(chainCost * 100).toFixed(1),
    verifyLogMB: +(bytes / 1e6).toFixed(1),
    verifyMBps: +verifyMBps.toFixed(0),
    verifyMBpsCpu: +median(cpuRates).toFixed(0),
    loadAverage: +loadavg()[0]!.toFixed(1),
    targets: { appendRatio: '>= 1.0', verifyMBps: '>= 200' },
    pass,
  }),
);
