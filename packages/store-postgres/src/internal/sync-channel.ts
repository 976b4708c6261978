// A synchronous path to the database for the few appends that must be committed before
// `append()` returns: the write-ahead record of a side effect (`tool/started`), after which the
// tool runs at once, with no await in between. A worker thread with its own connection runs the
// statement while the caller blocks on Atomics.wait; every other append stays asynchronous.
//
// The worker's code is a plain CommonJS string (no separate build entry, no TypeScript loader in
// the thread) that loads the same `pg` the store loaded.

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What one synchronous statement did. */
export type SyncOutcome =
  | { status: 'ok' }
  | { status: 'lease-lost'; owner: string | null }
  | { status: 'conflict'; storedLastSeq: number }
  | { status: 'error'; message: string };

/**
 * Events for {@link SyncChannel.run}, with the fenced insert. Some of the first ones may already
 * be committed (an asynchronous append of the same writer still in flight): the worker then stores
 * only the rest, so no seq is written twice and none is skipped.
 */
export interface SyncStatement {
  /** The fenced insert: $1 id, $2 token, $3 expected last seq, $4 new last seq, $5 bytes, $6 lease ms, $7 seqs, $8 data. */
  sql: string;
  /** `SELECT lease_token, lease_owner, last_seq … WHERE id = $1`. */
  diagnoseSql: string;
  sessionId: string;
  token: number;
  leaseMs: number;
  /** The events' seqs, consecutive. */
  seqs: number[];
  /** Their JSON lines. */
  data: string[];
}

const STATUS = ['pending', 'ok', 'lease-lost', 'conflict', 'error'] as const;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const client = new pg.Client(workerData.connection);
const connected = client.connect();
client.on('error', () => {});
const encoder = new TextEncoder();
parentPort.on('message', async (m) => {
  const view = new Int32Array(m.shared);
  const bytes = new Uint8Array(m.shared, 8);
  let status = 4, detail = '';
  try {
    await connected;
    let from = 0;
    for (;;) {
      const seqs = m.seqs.slice(from);
      const data = m.data.slice(from);
      const size = data.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
      const expected = seqs[0] - 1;
      const params = [m.sessionId, m.token, expected, seqs[seqs.length - 1], size, m.leaseMs, seqs, data];
      const result = await client.query(m.sql, params);
      if ((result.rowCount || 0) === seqs.length) { status = 1; break; }
      const row = (await client.query(m.diagnoseSql, [m.sessionId])).rows[0];
      if (!row || Number(row.lease_token) !== m.token) { status = 2; detail = (row && row.lease_owner) || ''; break; }
      const stored = Number(row.last_seq);
      // The writer's in-flight append committed some of these first: store the rest.
      if (stored >= expected + 1 && stored < seqs[seqs.length - 1]) { from += stored - expected; continue; }
      status = 3; detail = String(stored); break;
    }
  } catch (error) {
    status = 4; detail = String((error && error.message) || error);
  }
  const encoded = encoder.encode(detail).subarray(0, bytes.length);
  bytes.set(encoded);
  Atomics.store(view, 1, encoded.length);
  Atomics.store(view, 0, status);
  Atomics.notify(view, 0);
});
`;

/** A worker thread that runs statements while the calling thread waits. */
export interface SyncChannel {
  /** Runs `statement` and returns only when it committed or failed (at most `timeoutMs`). */
  run(statement: SyncStatement): SyncOutcome;
  /** Stops the worker thread. */
  close(): Promise<void>;
}

/** Starts the worker (lazily connected) for the database `connection` describes. */
export function createSyncChannel(
  connection: { connectionString?: string },
  options: { timeoutMs?: number } = {},
): SyncChannel {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pgPath = createRequire(import.meta.url).resolve('pg');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { pgPath, connection },
  });
  worker.unref();
  // A worker that dies makes the next run time out with a clear error; nothing to do here.
  worker.on('error', () => {});
  const shared = new SharedArrayBuffer(8 + 4096);
  const view = new Int32Array(shared, 0, 2);
  const bytes = new Uint8Array(shared, 8);
  return {
    run(statement: SyncStatement): SyncOutcome {
      Atomics.store(view, 0, 0);
      worker.postMessage({ ...statement, shared });
      const waited = Atomics.wait(view, 0, 0, timeoutMs);
      if (waited === 'timed-out') {
        return { status: 'error', message: `no answer from PostgreSQL within ${timeoutMs} ms` };
      }
      const detail = Buffer.from(bytes.subarray(0, Atomics.load(view, 1))).toString('utf8');
      const status = STATUS[Atomics.load(view, 0)] ?? 'error';
      if (status === 'ok') return { status };
      if (status === 'lease-lost') return { status, owner: detail || null };
      if (status === 'conflict') return { status, storedLastSeq: Number(detail) };
      return { status: 'error', message: detail || 'the synchronous writer failed' };
    },
    async close(): Promise<void> {
      await worker.terminate();
    },
  };
}
