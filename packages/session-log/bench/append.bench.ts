// Appending a realistic agent session with the JSONL store, chain on (its default), against the
// own floor: `JSON.stringify` of the same events with their chain values (`h`) included and one
// `writeSync` per line, which is what any JSONL logger does at the least. Target (issue 41):
// Spine's events/s ≥ 1.0× the floor. The events are an agent's turns (corpus.ts: code, tool
// output, JSON, Unicode prose): turn/start, the user's message, a tool call, tool/started, its
// result, the answer, turn/end. fsync 'never' on both sides (only compute and page-cache copies),
// no snapshots (their cost is snapshot-open.bench.ts's).
//
// For reference only: writeSync of the floor's lines serialised beforehand, one call per line
// (syscalls alone, no serialisation at all).
//
// Floor and Spine alternate round by round, their order swapping each round, in this one
// process, so a busy machine slows both alike; each round gives a ratio (floor time ÷ Spine
// time). The figure is the median ratio with a distribution-free 90% interval, and a pass needs
// the interval's low end at the target (scripts/lib/bench-interleave.ts judges it). Nothing collects garbage between measurements: V8 would
// sweep after a forced collection on background threads during the next measurement. The same
// ratio in process CPU time (which waiting for a busy core does not inflate) is printed beside it.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { judge, median, printReport } from '../../../scripts/lib/bench-interleave.js';
import { createJsonlStore, Session } from '../src/index.js';
import { assistantText, toolArguments, toolText, userText } from './corpus.js';

const EVENTS = Number(process.env.SPINE_BENCH_EVENTS ?? 10_000);
// 45 rounds (~10 s at 10k): with 15 the 90% interval spanned [0.96, 1.13] around a median of 1.09.
const ROUNDS = 45;
const TARGET = 1.0;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-append-'));
// Removed however the run ends, even on a failure part-way.
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

interface Append {
  type: string;
  body: unknown;
  options: { turn: number; step?: number; surfaceOp?: { op: 'append' } };
}

/** An agent's turns, `count` events in all. */
function turns(count: number): Append[] {
  const appends: Append[] = [];
  const surfaceOp = { op: 'append' as const };
  for (let turn = 1; appends.length < count; turn++) {
    const id = `call-${turn}`;
    const args = toolArguments();
    appends.push(
      { type: 'turn/start', body: {}, options: { turn } },
      {
        type: 'user/message',
        body: { content: userText(), source: 'user' },
        options: { turn, surfaceOp },
      },
      {
        type: 'assistant/message',
        body: {
          content: [{ type: 'tool-call', id, name: 'grep', arguments: args }],
          finishReason: 'tool-calls',
        },
        options: { turn, step: 1, surfaceOp },
      },
      {
        type: 'tool/started',
        body: { toolCallId: id, toolName: 'grep', arguments: args },
        options: { turn, step: 1 },
      },
      {
        type: 'tool/result',
        body: { toolCallId: id, toolName: 'grep', content: toolText(), isError: false },
        options: { turn, step: 1, surfaceOp },
      },
      {
        type: 'assistant/message',
        body: { content: [{ type: 'text', text: assistantText() }], finishReason: 'stop' },
        options: { turn, step: 2, surfaceOp },
      },
      { type: 'turn/end', body: { reason: 'completed' }, options: { turn } },
    );
  }
  appends.length = count;
  return appends;
}

const appends = turns(EVENTS);
const at = new Date().toISOString();
const chainValue = '0123456789abcdef0123456789abcdef';
// The floor's events: what the log holds, chain value included, built once.
const events = appends.map(({ type, body, options }, i) => ({
  seq: i + 2,
  type,
  at,
  body,
  ...options,
  h: chainValue,
}));

/** Process CPU time in ms (user + system), which waiting for a busy core does not inflate. */
const cpuNow = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const cpu = { floor: [] as number[], spine: [] as number[] };

function floor(round: number): number {
  const fd = openSync(join(dir, `floor-${round}.jsonl`), 'a');
  const cpuStart = cpuNow();
  const start = performance.now();
  for (const event of events) writeSync(fd, `${JSON.stringify(event)}\n`);
  const ms = performance.now() - start;
  cpu.floor.push(cpuNow() - cpuStart);
  closeSync(fd);
  rmSync(join(dir, `floor-${round}.jsonl`));
  return ms;
}

async function spine(round: number): Promise<number> {
  const store = createJsonlStore({ dir, fsync: 'never' });
  const session = await Session.create({ store, id: `spine-${round}`, snapshots: false });
  const cpuStart = cpuNow();
  const start = performance.now();
  for (const { type, body, options } of appends) session.append(type, body as never, options);
  await session.close();
  const ms = performance.now() - start;
  cpu.spine.push(cpuNow() - cpuStart);
  rmSync(join(dir, `spine-${round}.jsonl`));
  return ms;
}

const lines = events.map((event) => `${JSON.stringify(event)}\n`);
function readyLines(round: number): number {
  const fd = openSync(join(dir, `ready-${round}.jsonl`), 'a');
  const start = performance.now();
  for (const line of lines) writeSync(fd, line);
  const ms = performance.now() - start;
  closeSync(fd);
  rmSync(join(dir, `ready-${round}.jsonl`));
  return ms;
}

const times = { floor: [] as number[], spine: [] as number[], ready: [] as number[] };
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    times.floor.push(floor(round));
    times.spine.push(await spine(round));
  } else {
    times.spine.push(await spine(round));
    times.floor.push(floor(round));
  }
  times.ready.push(readyLines(round));
  ratios.push(times.floor[round]! / times.spine[round]!);
  console.log(
    `round ${round + 1}/${ROUNDS} (${EVENTS} events, ms): floor stringify+writeSync ${times.floor[round]!.toFixed(1)}, ` +
      `Session.append+close ${times.spine[round]!.toFixed(1)}, ratio ${ratios[round]!.toFixed(2)}; ` +
      `ready lines writeSync ${times.ready[round]!.toFixed(1)}`,
  );
}

const check = judge('floor ÷ Spine time (wall)', ratios, { atLeast: TARGET });
const cpuRatio = judge(
  'floor ÷ Spine CPU time',
  cpu.floor.map((ms, i) => ms / cpu.spine[i]!),
  {
    atLeast: TARGET,
  },
);
const readyRatio = judge(
  'ready-line writes ÷ Spine time',
  times.ready.map((ms, i) => ms / times.spine[i]!),
  {
    atLeast: 0,
  },
);
const rate = (values: number[]) => Math.round(EVENTS / (median(values) / 1000));
console.log(
  `Spine ${rate(times.spine)} events/s, floor ${rate(times.floor)}; in CPU time ${cpuRatio.figure}x ` +
    `[${cpuRatio.interval.join(', ')}]; vs ready-line writes ${readyRatio.figure}x (load ${loadavg()[0]!.toFixed(1)})`,
);
printReport({
  bench: 'session-log/append',
  checks: [check],
  figures: {
    events: EVENTS,
    spineEventsPerSecond: rate(times.spine),
    floorEventsPerSecond: rate(times.floor),
    readyLinesEventsPerSecond: rate(times.ready),
    cpuRatioToFloor: { figure: cpuRatio.figure, interval: cpuRatio.interval },
    // The median alone, under the name scripts/bench-compare.mjs reads.
    ratioToReadyLinesWriteSync: readyRatio.figure,
    load: +loadavg()[0]!.toFixed(1),
  },
});
