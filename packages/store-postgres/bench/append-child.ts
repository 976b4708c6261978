// One writer process of postgres.bench.ts: creates session `id` in the PostgreSQL (`pg`) or JSONL
// (`jsonl`) store and appends `events` 1 KB events in batches of `batch`, each batch flushed
// (acknowledged) before the next, as an agent's step would. Prints one JSON line: the wall time
// and every batch's latency in ms.
import type { OpenedSession, SessionEvent } from '@spine/protocol';
import { createJsonlStore } from '@spine/session-log';
import { createPostgresStore } from '../src/index.js';

const [mode, target, id, eventsText, batchText] = process.argv.slice(2) as [
  'pg' | 'jsonl',
  string,
  string,
  string,
  string,
];
const events = Number(eventsText);
const batch = Number(batchText);
const body = (seq: number) => ({
  content: `event ${seq} `.padEnd(1024, 'lorem ipsum '),
  source: 'user',
});
const store =
  mode === 'pg'
    ? createPostgresStore({ connectionString: target, schema: 'bench', maxConnections: 2 })
    : createJsonlStore({ dir: target, fsync: 'always' });
const at = new Date().toISOString();
const writer: OpenedSession = await store.create({
  seq: 1,
  type: 'session/header',
  at,
  body: { sessionId: id, formatVersion: 1, createdAt: at },
});
const latencies: number[] = [];
const start = performance.now();
for (let seq = 2; seq <= events + 1; seq += batch) {
  const slice: SessionEvent[] = [];
  for (let n = seq; n < Math.min(seq + batch, events + 2); n++) {
    slice.push({ seq: n, type: 'user/message', at, body: body(n), surfaceOp: { op: 'append' } });
  }
  const begun = performance.now();
  writer.append(slice);
  await writer.flush();
  latencies.push(performance.now() - begun);
}
const wallMs = performance.now() - start;
await writer.close();
if (mode === 'pg') await (store as ReturnType<typeof createPostgresStore>).close();
process.stdout.write(`${JSON.stringify({ wallMs, latencies })}\n`);
