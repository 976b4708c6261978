// Opening and deriving large sessions. Targets (issue 2), each against a baseline in this run:
// - open a 100k-event session ≤ 1.5 × reading the file and JSON.parse of every line;
// - heap after opening it ≤ 1.3 × the file's size;
// - deriveMessages() after one append on 100k events ≤ 2 × the same on 1k events (and < 1 ms).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createJsonlStore, Session } from '../src/index.js';

setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-open-'));
// Removed however the run ends, even on a failure part-way.
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
// SPINE_BENCH_CHAIN=off / SPINE_BENCH_SNAPSHOTS=off (scripts/bench-compare.mjs --env) measure
// without the tamper-evident chain / the automatic snapshots, to tell their cost from the rest.
const store = createJsonlStore({
  dir,
  fsync: 'never',
  ...(process.env.SPINE_BENCH_CHAIN === 'off' ? { chain: false } : {}),
});
const snapshotOption =
  process.env.SPINE_BENCH_SNAPSHOTS === 'off' ? { snapshots: false as const } : {};
const text = (i: number): string => `event ${i} `.padEnd(1024, 'lorem ipsum dolor sit amet ');

/** Writes a session of `count` events: user messages, assistant tool calls and their results. */
async function build(id: string, count: number): Promise<void> {
  const session = await Session.create({ store, id, ...snapshotOption });
  let turn = 0;
  while (session.lastSeq < count) {
    const seq = session.lastSeq;
    if (seq % 4 === 1) {
      turn++;
      session.append(
        'user/message',
        { content: text(seq), source: 'user' },
        { turn, surfaceOp: { op: 'append' } },
      );
    } else if (seq % 4 === 2) {
      const content = [
        { type: 'tool-call', id: `call-${seq}`, name: 'read', arguments: '{"path":"a.ts"}' },
      ];
      session.append(
        'assistant/message',
        { content, finishReason: 'tool-calls' },
        { turn, step: 1, surfaceOp: { op: 'append' } },
      );
    } else if (seq % 4 === 3) {
      const body = {
        toolCallId: `call-${seq - 1}`,
        toolName: 'read',
        content: text(seq),
        isError: false,
      };
      session.append('tool/result', body, { turn, step: 1, surfaceOp: { op: 'append' } });
    } else {
      session.append(
        'assistant/message',
        { content: [{ type: 'text', text: text(seq) }], finishReason: 'stop' },
        { turn, step: 2, surfaceOp: { op: 'append' } },
      );
    }
  }
  await session.close();
}

function readAndParse(path: string): number {
  const start = performance.now();
  const lines = readFileSync(path, 'utf8').split('\n');
  const parsed: unknown[] = [];
  for (const line of lines) if (line.length > 0) parsed.push(JSON.parse(line));
  const elapsed = performance.now() - start;
  if (parsed.length === 0) throw new Error('nothing parsed');
  return elapsed;
}

async function openSession(id: string): Promise<number> {
  const start = performance.now();
  const session = await Session.open({ store, id, ...snapshotOption });
  const elapsed = performance.now() - start;
  await session.close();
  return elapsed;
}

/** Median time of deriveMessages() right after one append, over `rounds` appends. */
async function deriveAfterAppend(id: string, rounds: number): Promise<number> {
  const session = await Session.open({ store, id, ...snapshotOption });
  session.deriveMessages();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    session.append(
      'user/message',
      { content: 'short', source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
    const start = performance.now();
    session.deriveMessages();
    samples.push(performance.now() - start);
  }
  await session.close();
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

console.log('building a 100k-event and a 1k-event session (1 KB bodies)…');
await build('big', 100_000);
await build('small', 1_000);
await build('warm', 1_000);
const bigPath = join(dir, 'big.jsonl');
const fileBytes = statSync(bigPath).size;
console.log(`big session file: ${(fileBytes / 1e6).toFixed(1)} MB`);

const baselineMs: number[] = [];
const openMs: number[] = [];
for (let round = 0; round < 5; round++) {
  gc();
  baselineMs.push(readAndParse(bigPath));
  gc();
  openMs.push(await openSession('big'));
  console.log(
    `round ${round + 1}/5: read+JSON.parse ${baselineMs[round]!.toFixed(0)} ms, Session.open ${openMs[round]!.toFixed(0)} ms`,
  );
}
const openRatio = Math.min(...openMs) / Math.min(...baselineMs);

gc();
const heapBefore = process.memoryUsage().heapUsed;
const held = await Session.open({ store, id: 'big', readOnly: true });
gc();
const heapAfter = process.memoryUsage().heapUsed;
const heapRatio = (heapAfter - heapBefore) / fileBytes;
console.log(
  `heap after open: ${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB for a ${(fileBytes / 1e6).toFixed(1)} MB file`,
);
await held.close();

await deriveAfterAppend('warm', 2_000);
const derive1k = await deriveAfterAppend('small', 2_000);
const derive100k = await deriveAfterAppend('big', 2_000);
const deriveRatio = derive100k / derive1k;
console.log(
  `deriveMessages after one append: ${(derive1k * 1000).toFixed(2)} µs at 1k, ${(derive100k * 1000).toFixed(2)} µs at 100k`,
);
rmSync(dir, { recursive: true, force: true });

const pass = openRatio <= 1.5 && heapRatio <= 1.3 && deriveRatio <= 2 && derive100k < 1;
console.log(
  JSON.stringify({
    bench: 'session-log/open',
    events: 100_000,
    fileMB: +(fileBytes / 1e6).toFixed(1),
    readParseMs: +Math.min(...baselineMs).toFixed(1),
    openMs: +Math.min(...openMs).toFixed(1),
    openRatio: +openRatio.toFixed(2),
    heapRatio: +heapRatio.toFixed(2),
    derive1kMicros: +(derive1k * 1000).toFixed(2),
    derive100kMicros: +(derive100k * 1000).toFixed(2),
    deriveRatio: +deriveRatio.toFixed(2),
    targets: {
      openRatio: '<= 1.5',
      heapRatio: '<= 1.3',
      deriveRatio: '<= 2',
      derive100kMicros: '< 1000',
    },
    pass,
  }),
);
