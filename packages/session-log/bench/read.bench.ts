// The JSONL readers on the realistic 100k-event corpus (code, tool output, JSON, Unicode), each
// against reading the same file whole, splitting it at newlines and JSON.parse of every line in
// this run (the baseline keeps nothing: it measures decoding and parsing, not holding events):
// - readJsonlEvents: the whole file (what a full open reads);
// - readJsonlEvents from seq 99,001 on (byte-level skip of the lines before);
// - readJsonlRange over the whole file, and with a type filter (tool/result only).
// No target is set by an issue; pass means every reader finished and agreed on the event count.
// The figures guard the shared line-block iterator of internal/jsonl-read.ts.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createJsonlStore } from '../src/index.js';
import { readJsonlEvents, readJsonlRange } from '../src/internal/jsonl-read.js';
import { buildSession } from './build-session.js';

setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-read-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const store = createJsonlStore({ dir, fsync: 'never' });
const EVENTS = 100_000;
const ROUNDS = 5;

await buildSession(store, 'r', EVENTS);
const path = join(dir, 'r.jsonl');
const fileBytes = statSync(path).size;
console.log(`built ${EVENTS} events (${(fileBytes / 1e6).toFixed(1)} MB)`);

/** CPU milliseconds of `run` (the machine is shared: CPU time is the comparable figure). */
function cpuMs(run: () => number, expected?: number): number {
  gc();
  const before = process.cpuUsage();
  const count = run();
  const used = process.cpuUsage(before);
  if (expected !== undefined && count !== expected) {
    throw new Error(`read ${count} events where ${expected} were expected`);
  }
  return (used.user + used.system) / 1000;
}

const cases: Record<string, () => number> = {
  baseline: () => {
    let parsed = 0;
    for (const line of readFileSync(path, 'utf8').split('\n'))
      if (line.length > 0 && JSON.parse(line)) parsed++;
    return parsed;
  },
  readEvents: () => readJsonlEvents(path).events.length,
  readEventsSkip: () => readJsonlEvents(path, { fromSeq: EVENTS - 999 }).events.length,
  readRange: () => {
    let count = 0;
    for (const _ of readJsonlRange(path, { fromSeq: 1 })) count++;
    return count;
  },
  readRangeTyped: () => {
    let count = 0;
    for (const _ of readJsonlRange(path, { fromSeq: 1, types: new Set(['tool/result']) })) count++;
    return count;
  },
};
const lines = cases.baseline?.() as number;
const expected: Record<string, number | undefined> = {
  baseline: lines,
  readEvents: lines,
  readEventsSkip: lines - (EVENTS - 1000),
  readRange: lines,
};
const samples: Record<string, number[]> = {};
for (const name of Object.keys(cases)) samples[name] = [];
cases.readEvents?.(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(cases)) {
    samples[name]?.push(cpuMs(run, expected[name]));
  }
  console.log(
    `round ${round + 1}/${ROUNDS}: ${Object.entries(samples)
      .map(([name, values]) => `${name} ${values.at(-1)?.toFixed(0)} ms`)
      .join(', ')}`,
  );
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const figures: Record<string, number> = {};
for (const [name, values] of Object.entries(samples))
  figures[`${name}CpuMs`] = +median(values).toFixed(1);
const base = median(samples.baseline ?? []);
const ratio = (name: string): number => +(median(samples[name] ?? []) / base).toFixed(2);
console.log(
  JSON.stringify({
    bench: 'session-log/read',
    events: EVENTS,
    fileMB: +(fileBytes / 1e6).toFixed(1),
    baseline: 'CPU median of readFileSync + split + JSON.parse of every line, nothing kept',
    ...figures,
    readEventsRatio: ratio('readEvents'),
    readRangeRatio: ratio('readRange'),
    readRangeTypedRatio: ratio('readRangeTyped'),
    skipRatio: ratio('readEventsSkip'),
    load: +(loadavg()[0] as number).toFixed(1),
    pass: true,
  }),
);
