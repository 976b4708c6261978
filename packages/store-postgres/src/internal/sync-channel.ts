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
  | { status: 'error'; message: string; sqlState?: string };

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
  /**
   * Blobs not known to be committed, stored (fenced, idempotent) before any event: an event
   * never reaches the table ahead of a blob it references.
   */
  blobs?: readonly { sha256: string; bytes: Uint8Array }[];
  /** The fenced blob insert: $1 id, $2 token, $3 SHA-256, $4 bytes; returns `lease_token, lease_owner`. */
  blobSql?: string;
}

const STATUS = ['pending', 'ok', 'lease-lost', 'conflict', 'error'] as const;

// One statement at a time, in order. Each call brings its own shared buffer and a deadline: an
// answer can only wake the call it belongs to, and a call whose caller gave up is never started.
// A connection that fails or times out is discarded; the next attempt connects afresh, with
// backoff (50 ms doubling to 1 s), until the deadline. A retried insert is safe: it is fenced by
// the expected last seq, and a batch found committed by an earlier attempt counts as done.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const encoder = new TextEncoder();
let client = null;
const queue = [];
let busy = false;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const discard = () => {
  const old = client;
  client = null;
  if (old) { try { old.connection.stream.destroy(); } catch {} old.end().catch(() => {}); }
};
const bounded = (promise, deadline) => {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('no answer from PostgreSQL in time'), { lost: true })), Math.max(1, deadline - Date.now()));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};
let connecting = null;
const open = async () => {
  const fresh = new pg.Client({ ...workerData.connection, connectionTimeoutMillis: workerData.connectTimeoutMs });
  fresh.on('error', () => { if (client === fresh) client = null; });
  try { await fresh.connect(); } catch (error) { fresh.end().catch(() => {}); throw error; }
  client = fresh;
  return fresh;
};
const connectedBy = async (deadline) => {
  if (client) return client;
  connecting ??= open().finally(() => { connecting = null; });
  return await bounded(connecting, deadline);
};
// Connect at once, so the first write-ahead append does not wait for it.
connectedBy(Date.now() + workerData.connectTimeoutMs).catch(() => {});
const storeBlobs = async (c, m) => {
  while (m.blobs && m.blobs.length > 0) {
    const b = m.blobs[0];
    const bytes = Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.bytes.byteLength);
    const row = (await bounded(c.query(m.blobSql, [m.sessionId, m.token, b.sha256, bytes]), m.deadline)).rows[0];
    if (!row || Number(row.lease_token) !== m.token) return [2, (row && row.lease_owner) || ''];
    m.blobs.shift();
  }
  return null;
};
const attempt = async (m) => {
  const c = await connectedBy(m.deadline);
  // Blobs first (each insert commits on its own and a retry finds it there): an event is
  // never committed ahead of a blob it references.
  const fenced = await storeBlobs(c, m);
  if (fenced) return fenced;
  const last = m.seqs[m.seqs.length - 1];
  let from = 0;
  for (;;) {
    const seqs = m.seqs.slice(from);
    const data = m.data.slice(from);
    const size = data.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    const expected = seqs[0] - 1;
    const params = [m.sessionId, m.token, expected, last, size, m.leaseMs, seqs, data];
    const result = await bounded(c.query(m.sql, params), m.deadline);
    if ((result.rowCount || 0) === seqs.length) return [1, ''];
    const row = (await bounded(c.query(m.diagnoseSql, [m.sessionId]), m.deadline)).rows[0];
    if (!row || Number(row.lease_token) !== m.token) return [2, (row && row.lease_owner) || ''];
    const stored = Number(row.last_seq);
    // Committed already: by an attempt whose answer was lost, or by the writer's in-flight append.
    if (stored === last) return [1, ''];
    if (stored >= expected + 1 && stored < last) { from += stored - expected; continue; }
    return [3, String(stored)];
  }
};
const lostConnection = (error) => {
  const code = error && error.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|57P0|57014|53300|53400)/.test(code);
  return true;
};
const execute = async (m) => {
  let pause = 50;
  let reason = 'no time left';
  while (Date.now() < m.deadline) {
    try {
      return await attempt(m);
    } catch (error) {
      reason = String((error && error.message) || error);
      if (!lostConnection(error)) return [4, (error.code || '') + '|' + reason];
      discard();
      await sleep(Math.min(pause, m.deadline - Date.now()));
      pause = Math.min(pause * 2, 1000);
    }
  }
  return [4, '|' + reason];
};
const answer = (m, status, detail) => {
  const view = new Int32Array(m.shared, 0, 2);
  const bytes = new Uint8Array(m.shared, 8);
  const encoded = encoder.encode(detail).subarray(0, bytes.length);
  bytes.set(encoded);
  Atomics.store(view, 1, encoded.length);
  Atomics.store(view, 0, status);
  Atomics.notify(view, 0);
};
const pump = async () => {
  if (busy) return;
  busy = true;
  while (queue.length > 0) {
    const m = queue.shift();
    if (Date.now() >= m.deadline) { answer(m, 4, '|the caller stopped waiting'); continue; }
    const [status, detail] = await execute(m);
    answer(m, status, detail);
  }
  busy = false;
};
parentPort.on('message', (m) => { queue.push(m); pump(); });
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
  connection: { connectionString?: string; connectionTimeoutMillis?: number },
  options: { timeoutMs?: number } = {},
): SyncChannel {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const pgPath = createRequire(import.meta.url).resolve('pg');
  let worker: Worker | undefined;
  const started = (): Worker => {
    if (worker) return worker;
    const fresh = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgPath,
        connection,
        connectTimeoutMs: connection.connectionTimeoutMillis ?? 10_000,
      },
    });
    fresh.unref();
    // A worker that dies is replaced at the next call; the call it had times out clearly.
    fresh.on('error', () => {});
    fresh.on('exit', () => {
      if (worker === fresh) worker = undefined;
    });
    worker = fresh;
    return fresh;
  };
  return {
    run(statement: SyncStatement): SyncOutcome {
      // A buffer per call: a late answer to a call that gave up can never wake this one.
      const shared = new SharedArrayBuffer(8 + 4096);
      const view = new Int32Array(shared, 0, 2);
      const bytes = new Uint8Array(shared, 8);
      const deadline = Date.now() + timeoutMs;
      started().postMessage({ ...statement, shared, deadline });
      while (Atomics.load(view, 0) === 0) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        Atomics.wait(view, 0, 0, left);
      }
      if (Atomics.load(view, 0) === 0) {
        return { status: 'error', message: `no commit from PostgreSQL within ${timeoutMs} ms` };
      }
      const detail = Buffer.from(bytes.subarray(0, Atomics.load(view, 1))).toString('utf8');
      const status = STATUS[Atomics.load(view, 0)] ?? 'error';
      if (status === 'ok') return { status };
      if (status === 'lease-lost') return { status, owner: detail || null };
      if (status === 'conflict') return { status, storedLastSeq: Number(detail) };
      const bar = detail.indexOf('|');
      const state = detail.slice(0, Math.max(0, bar));
      return {
        status: 'error',
        message: detail.slice(bar + 1) || 'the synchronous writer failed',
        ...(/^[0-9A-Z]{5}$/.test(state) ? { sqlState: state } : {}),
      };
    },
    async close(): Promise<void> {
      const running = worker;
      worker = undefined;
      await running?.terminate();
    },
  };
}
