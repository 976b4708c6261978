// The tamper-evident chain (issue 20), on realistic content (code, tool output, JSON, Unicode):
// - append with the chain on ≥ 1.0 × JSON.stringify + writeSync per event of the same events;
//   the chain's own cost is printed as chain-on vs chain-off appends;
// - verifyJsonlLog ≥ 200 MB/s on a ~95 MB log (SPINE_BENCH_1M=1: a 1,000,000-event ~1 GB log).
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

async function appendMs(round: number, chain: boolean): Promise<number> {
  const store = createJsonlStore({ dir, fsync: 'never', chain });
  const start = performance.now();
  const session = await Session.create({ store, id: `a${round}-${chain}`, snapshots: false });
  for (const body of bodies) session.append('user/message', body, { surfaceOp: { op: 'append' } });
  await session.close();
  return performance.now() - start;
}

function perEventMs(round: number): number {
  const path = join(dir, `raw${round}.jsonl`);
  const fd = openSync(path, 'w');
  const start = performance.now();
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
  const elapsed = performance.now() - start;
  closeSync(fd);
  rmSync(path);
  return elapsed;
}

const on: number[] = [];
const off: number[] = [];
const raw: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  raw.push(perEventMs(round));
  on.push(await appendMs(round, true));
  off.push(await appendMs(round, false));
  console.log(
    `round ${round + 1}/${ROUNDS}: stringify+writeSync ${raw[round]?.toFixed(0)} ms, append chain on ${on[round]?.toFixed(0)} ms, off ${off[round]?.toFixed(0)} ms`,
  );
}
const best = (values: number[]): number => Math.min(...values);
const appendRatio = best(raw) / best(on);
const chainCost = best(on) / best(off) - 1;

const count = process.env.SPINE_BENCH_1M ? 1_000_000 : 100_000;
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
const verifyMBps = Math.max(...rates);
const pass = appendRatio >= 1.0 && verifyMBps >= 200;
console.log(
  JSON.stringify({
    bench: 'session-log/chain',
    events: EVENTS,
    appendChainOnMs: +best(on).toFixed(1),
    appendChainOffMs: +best(off).toFixed(1),
    perEventStringifyWriteSyncMs: +best(raw).toFixed(1),
    appendRatio: +appendRatio.toFixed(2),
    chainCostPercent: +(chainCost * 100).toFixed(1),
    verifyLogMB: +(bytes / 1e6).toFixed(1),
    verifyMBps: +verifyMBps.toFixed(0),
    verifyMBpsCpu: +Math.max(...cpuRates).toFixed(0),
    targets: { appendRatio: '>= 1.0', verifyMBps: '>= 200' },
    pass,
  }),
);
