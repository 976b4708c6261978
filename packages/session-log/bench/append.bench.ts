// Appends with the JSONL store (fsync 'never', 1 KB bodies) against raw fs.writeSync of the same
// lines one by one. Target (issue 2): Spine's events/s ≥ 1.0 × the raw baseline. Two baselines:
// the pass figure serialises each event and writes it (what an unbuffered log does per append);
// the second writes lines serialised beforehand, so it times the syscalls alone, and is reported.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createJsonlStore, Session } from '../src/index.js';

setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void;

const EVENTS = 10_000;
const ROUNDS = 7;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-append-'));
const content = (i: number): string => `message ${i} `.padEnd(1024, 'lorem ipsum dolor sit amet ');

const eventFor = (i: number, at: string) => ({
  seq: i + 2,
  type: 'user/message',
  at,
  body: { content: content(i), source: 'user' },
  surfaceOp: { op: 'append' },
});

/** Raw writeSync of pre-serialised lines, one call per line (serialisation not timed). */
function rawPreSerialised(round: number): number {
  const at = new Date().toISOString();
  const lines = Array.from({ length: EVENTS }, (_, i) => `${JSON.stringify(eventFor(i, at))}\n`);
  const fd = openSync(join(dir, `raw-${round}.jsonl`), 'a');
  const start = performance.now();
  for (const line of lines) writeSync(fd, line);
  const elapsed = performance.now() - start;
  closeSync(fd);
  return elapsed;
}

/** Raw writeSync of each line as the event arrives: serialise, then one write call per line. */
function rawPerEvent(round: number): number {
  const events = Array.from({ length: EVENTS }, (_, i) => eventFor(i, new Date().toISOString()));
  const fd = openSync(join(dir, `naive-${round}.jsonl`), 'a');
  const start = performance.now();
  for (const event of events) writeSync(fd, `${JSON.stringify(event)}\n`);
  const elapsed = performance.now() - start;
  closeSync(fd);
  return elapsed;
}

async function spine(round: number): Promise<number> {
  const store = createJsonlStore({ dir, fsync: 'never' });
  const session = await Session.create({ store, id: `spine-${round}` });
  const bodies = Array.from({ length: EVENTS }, (_, i) => ({
    content: content(i),
    source: 'user',
  }));
  const start = performance.now();
  for (const body of bodies) session.append('user/message', body, { surfaceOp: { op: 'append' } });
  await session.close();
  return performance.now() - start;
}

const preMs: number[] = [];
const perEventMs: number[] = [];
const spineMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  gc();
  preMs.push(rawPreSerialised(round));
  gc();
  perEventMs.push(rawPerEvent(round));
  gc();
  spineMs.push(await spine(round));
  console.log(
    `round ${round + 1}/${ROUNDS} (${EVENTS} events): writeSync of ready lines ${preMs[round]!.toFixed(1)} ms, ` +
      `stringify+writeSync per event ${perEventMs[round]!.toFixed(1)} ms, Session.append+close ${spineMs[round]!.toFixed(1)} ms`,
  );
}
rmSync(dir, { recursive: true, force: true });
const rate = (values: number[]): number => EVENTS / (Math.min(...values) / 1000);
const ratioPerEvent = rate(spineMs) / rate(perEventMs);
const ratioPreSerialised = rate(spineMs) / rate(preMs);
console.log(
  `Spine ${Math.round(rate(spineMs))} events/s: ${ratioPerEvent.toFixed(2)}x stringify+writeSync per event, ` +
    `${ratioPreSerialised.toFixed(2)}x writeSync of ready lines (which leaves serialisation untimed)`,
);
console.log(
  JSON.stringify({
    bench: 'session-log/append',
    events: EVENTS,
    bodyBytes: 1024,
    spineEventsPerSecond: Math.round(rate(spineMs)),
    perEventWriteSyncEventsPerSecond: Math.round(rate(perEventMs)),
    readyLinesWriteSyncEventsPerSecond: Math.round(rate(preMs)),
    ratioToPerEventWriteSync: +ratioPerEvent.toFixed(2),
    ratioToReadyLinesWriteSync: +ratioPreSerialised.toFixed(2),
    target: 'ratioToPerEventWriteSync >= 1.0',
    pass: ratioPerEvent >= 1.0,
  }),
);
