// The PostgreSQL store against the JSONL store on the same machine (issue 21), every figure
// measured in this run against a throwaway embedded PostgreSQL (or SPINE_TEST_POSTGRES_URL):
// - append throughput, one writer, 1 KB events in batches of 20 (a step), each batch acknowledged
//   (PostgreSQL: committed; JSONL: fsync 'always') before the next: events/s and p99 batch latency;
// - 8 writer processes on 8 sessions at once, batches of 10: total events/s, p99 batch latency;
// - opening a 100,000-event session with a snapshot (Session.open history 'lazy', realistic
//   content with compactions), interleaved with the JSONL store's open round by round: median
//   per-round ratio ≤ 2, judged on its 90% interval;
// - follower latency: append (flushed) to delivery through follow() on another connection,
//   p50/p99, with LISTEN/NOTIFY waking the follower (poll fallback 1 s).
// Prints one JSON object last.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createJsonlStore, Session } from '@spine/session-log';
import pg from 'pg';
import {
  interleave,
  judge,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { buildSession } from '../../session-log/bench/build-session.js';
import { createPostgresStore, migratePostgresStore } from '../src/index.js';
import { bundle, startChild } from '../test/child.js';
import { startTestServer } from '../test/server.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-bench-pg-'));
const server = await startTestServer();
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const schema = 'bench';
await migratePostgresStore({ connectionString: server.url, schema });
const childFile = await bundle('../bench/append-child.ts', join(dir, 'append-child.mjs'));

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

interface ChildResult {
  wallMs: number;
  latencies: number[];
}

/** Runs one bundled writer (startChild gives it the NODE_PATH that lets it load `pg`). */
async function runChild(args: string[]): Promise<ChildResult> {
  const running = startChild(childFile, args);
  const line = await running.waitFor((text) => text.startsWith('{'));
  return JSON.parse(line) as ChildResult;
}

async function appendFigures(mode: 'pg' | 'jsonl', writers: number, events: number, batch: number) {
  const target = mode === 'pg' ? server.url : join(dir, `jsonl-${writers}-${Date.now()}`);
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: writers }, (_, n) =>
      runChild([mode, target, `w${writers}-${n}-${Date.now()}`, String(events), String(batch)]),
    ),
  );
  // Throughput over the span every writer was appending (process start-up excluded).
  const slowest = Math.max(...results.map((result) => result.wallMs));
  const latencies = results.flatMap((result) => result.latencies);
  void started;
  return {
    eventsPerSecond: Math.round((writers * events) / (slowest / 1000)),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
  };
}

console.log('append: one writer, batches of 20');
const single = {
  pg: await appendFigures('pg', 1, 10_000, 20),
  jsonl: await appendFigures('jsonl', 1, 10_000, 20),
};
console.log(JSON.stringify(single));
console.log('append: 8 writer processes × 8 sessions, batches of 10');
const eight = {
  pg: await appendFigures('pg', 8, 2_000, 10),
  jsonl: await appendFigures('jsonl', 8, 2_000, 10),
};
console.log(JSON.stringify(eight));

console.log('open: 100,000 events with a snapshot');
const pgStore = createPostgresStore({ connectionString: server.url, schema });
const jsonlStore = createJsonlStore({ dir, fsync: 'never' });
await buildSession(pgStore, 'big', 100_000);
await buildSession(jsonlStore, 'big', 100_000);
// The server settles first: the writes above leave dirty pages and autovacuum work that would
// otherwise run during the first rounds of the PostgreSQL side only.
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('VACUUM ANALYZE');
await admin.query('CHECKPOINT');
await admin.end();
async function openMs(store: typeof pgStore | typeof jsonlStore): Promise<number> {
  const start = performance.now();
  const session = await Session.open({ store, id: 'big', history: 'lazy', readOnly: true });
  session.deriveMessages();
  const elapsed = performance.now() - start;
  await session.close();
  return elapsed;
}
// Interleaved round by round (scripts/lib/bench-interleave.ts): the judged figure is the median of
// the per-round ratios, with its 90% interval; the best of each side is printed for context.
const opens = await interleave({
  sides: { pg: () => openMs(pgStore), jsonl: () => openMs(jsonlStore) },
  // 61 rounds (~10–15 s): the PostgreSQL side runs in three processes (client, server backend,
  // and the test server's), so a busy machine's bursts hit its rounds harder; with 15 the interval
  // of a 1.49 median reached 2.57 beside npm test, with 31 a 1.90 median's reached 1.52–2.37.
  rounds: 61,
  warmup: 2,
  gc: false,
});
const openCheck = ratioCheck(
  opens,
  'pg',
  'jsonl',
  { atMost: 2 },
  { name: 'open 100k: PostgreSQL ÷ JSONL' },
);
const open = {
  pgMs: round(percentile(opens.pg, 50)),
  jsonlMs: round(percentile(opens.jsonl, 50)),
  ratio: openCheck.figure,
  ratio90: openCheck.interval,
  bestRatio: round(Math.min(...opens.pg) / Math.min(...opens.jsonl), 2),
};
console.log(JSON.stringify(open));

console.log('follower latency');
const followerStore = createPostgresStore({ connectionString: server.url, schema });
const header = new Date().toISOString();
const writer = await pgStore.create({
  seq: 1,
  type: 'session/header',
  at: header,
  body: { sessionId: 'followed', formatVersion: 1, createdAt: header },
});
const FOLLOWED = 300;
const appendedAt = new Map<number, number>();
const delays: number[] = [];
const controller = new AbortController();
const following = (async () => {
  for await (const event of followerStore.follow('followed', {
    afterSeq: 1,
    signal: controller.signal,
  })) {
    delays.push(performance.now() - (appendedAt.get(event.seq) ?? Number.NaN));
    if (delays.length === FOLLOWED) controller.abort();
  }
})();
await delay(300);
for (let seq = 2; seq <= FOLLOWED + 1; seq++) {
  appendedAt.set(seq, performance.now());
  writer.append([{ seq, type: 'note/bench', at: new Date().toISOString(), body: { seq } }]);
  await writer.flush();
  await delay(5);
}
await following;
await writer.close();
const follower = {
  p50Ms: round(percentile(delays, 50), 2),
  p99Ms: round(percentile(delays, 99), 2),
};
console.log(JSON.stringify(follower));

await pgStore.close();
await followerStore.close();
await server.stop();
const followed = judge(
  'follower: every appended event seen (1 = yes)',
  [delays.every((value) => Number.isFinite(value)) ? 1 : 0],
  { atLeast: 1 },
);
printReport({
  bench: 'store-postgres',
  checks: [openCheck, followed],
  figures: {
    appendOneWriter: single,
    appendEightWriters: eight,
    open100k: open,
    follower,
  },
});
