// The writer an open session hands back. `append` is synchronous (the SessionStore contract), so
// it queues the batch and sends it at once; batches queued while one is in flight go out
// together as the next single statement. Every statement checks the fencing token and the
// expected last seq in the same UPDATE that guards the INSERT: a writer whose lease was taken
// over, or that raced another writer, stores nothing and gets a typed error.

import { setTimeout as delay } from 'node:timers/promises';
import type { OpenedSession, SessionEvent, StoreBlobs, StoredSnapshot } from '@spine/protocol';
import type { Pool } from 'pg';
import {
  AppendConflictError,
  InvalidRangeError,
  LeaseLostError,
  SessionClosedError,
  StoreUnavailableError,
} from '../errors.js';
import { blobInsertSql, type PendingBlob, writeBlobs } from './blobs.js';
import { isConnectionError, sqlState, translate } from './database.js';
import { snapshotWriteSql, splitSnapshot } from './snapshots.js';
import type { SyncChannel } from './sync-channel.js';

/** What a writer needs to know about its session and lease. */
export interface WriterContext {
  pool: Pool;
  schema: string;
  sessionId: string;
  events: SessionEvent[];
  /** The last committed seq when opened. */
  lastSeq: number;
  readOnly: boolean;
  /** The fencing token of the lease this writer holds (unused when read-only). */
  token: number;
  leaseMs: number;
  /** Event types whose append returns only once committed (see `durableTypes`). */
  durableTypes: ReadonlySet<string>;
  /** The store's synchronous channel, started on first use. */
  syncChannel: () => SyncChannel;
  /** How long an asynchronous append retries after a lost connection. */
  reconnectMs: number;
  /** The session's blobs read at open (the writer adds what it puts). */
  blobs: Map<string, Uint8Array>;
}

function byteSize(lines: readonly string[]): number {
  return lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
}

/** Makes the `OpenedSession` of one open (a lease holder, or a reader). */
export function createWriter(context: WriterContext): OpenedSession {
  const { pool, sessionId, readOnly, token, leaseMs } = context;
  const s = `"${context.schema}"`;
  let lastSeq = context.lastSeq;
  let storedSeq = lastSeq;
  let pending: SessionEvent[] = [];
  let inflight: Promise<void> | undefined;
  /** The events of the asynchronous statement in flight (perhaps not even sent yet). */
  let sending: readonly SessionEvent[] = [];
  let failure: Error | undefined;
  let reported = false;
  let closed = false;
  /** Blobs put but not yet written: sent before the next event batch. */
  let pendingBlobs: PendingBlob[] = [];
  /** The blobs of the asynchronous write in flight (perhaps not all sent yet). */
  let sendingBlobs: readonly PendingBlob[] = [];

  const insert = `WITH lease AS (
      UPDATE ${s}.spine_sessions
         SET last_seq = $4, size_bytes = size_bytes + $5, updated_at = clock_timestamp(),
             lease_expires_at = clock_timestamp() + $6 * interval '1 millisecond'
       WHERE id = $1 AND lease_token = $2 AND last_seq = $3
       RETURNING id)
    INSERT INTO ${s}.spine_events (session_id, seq, data)
    SELECT lease.id, t.seq, t.data FROM lease, unnest($7::bigint[], $8::text[]) AS t(seq, data)`;

  const diagnose = async (expected: number): Promise<Error> => {
    const row = await pool
      .query<{ lease_token: string; lease_owner: string | null; last_seq: string }>(
        `SELECT lease_token, lease_owner, last_seq FROM ${s}.spine_sessions WHERE id = $1`,
        [sessionId],
      )
      .then((result) => result.rows[0])
      .catch(() => undefined);
    if (row && Number(row.lease_token) !== token) {
      return new LeaseLostError({ sessionId, token, owner: row.lease_owner });
    }
    return new AppendConflictError({
      sessionId,
      expectedLastSeq: expected,
      ...(row ? { storedLastSeq: Number(row.last_seq) } : {}),
    });
  };

  const describe = (): string => `session ${sessionId} (schema ${context.schema})`;

  /** After a lost answer: what this writer's token committed (only this writer appends with it). */
  const learnStored = async (): Promise<void> => {
    const row = await pool
      .query<{ lease_token: string; last_seq: string }>(
        `SELECT lease_token, last_seq FROM ${s}.spine_sessions WHERE id = $1`,
        [sessionId],
      )
      .then((result) => result.rows[0])
      .catch(() => undefined);
    if (row && Number(row.lease_token) === token) {
      storedSeq = Math.max(storedSeq, Math.min(Number(row.last_seq), lastSeq));
    }
  };

  const write = async (batch: SessionEvent[]): Promise<void> => {
    const seqs: number[] = [];
    const data: string[] = [];
    let bytes = 0;
    for (const event of batch) {
      const line = JSON.stringify(event);
      bytes += Buffer.byteLength(line) + 1;
      seqs.push(event.seq);
      data.push(line);
    }
    const last = seqs[seqs.length - 1] as number;
    const deadline = Date.now() + context.reconnectMs;
    let pause = 50;
    for (;;) {
      // A write-ahead append (or an attempt whose answer was lost) stored these events.
      if (storedSeq >= last) return;
      const from = seqs.findIndex((seq) => seq > storedSeq);
      let inserted: number;
      try {
        const result = await pool.query(insert, [
          sessionId,
          token,
          storedSeq,
          last,
          from === 0 ? bytes : byteSize(data.slice(from)),
          leaseMs,
          seqs.slice(from),
          data.slice(from),
        ]);
        inserted = result.rowCount ?? 0;
      } catch (error) {
        if (sqlState(error) === '23505') throw await diagnose(storedSeq);
        if (!isConnectionError(error)) throw translate(error, describe());
        if (Date.now() + pause >= deadline) {
          throw new StoreUnavailableError({
            message: `Session ${sessionId}: PostgreSQL did not take an append within ${context.reconnectMs} ms (${(error as Error).message}); reopen the session to continue`,
            cause: error,
          });
        }
        await delay(pause);
        pause = Math.min(pause * 2, 1000);
        await learnStored();
        continue;
      }
      if (inserted === seqs.length - from) break;
      if (storedSeq >= last) return;
      await learnStored();
      if (storedSeq >= last) return;
      throw await diagnose(storedSeq);
    }
    // A synchronous append may already have stored later seqs.
    storedSeq = Math.max(storedSeq, last);
  };

  /** Commits the unsent events and `batch` before returning (the write-ahead path). */
  const writeNow = (batch: readonly SessionEvent[]): void => {
    // The main thread is blocked until this returns, so an asynchronous statement that has not
    // reached the server yet never will: include its events (the worker skips what it finds
    // committed) and everything unsent.
    const events = [...sending.filter((event) => event.seq > storedSeq), ...pending, ...batch];
    pending = [];
    // Likewise every blob not known committed: the worker stores them before the events.
    const blobs = [...sendingBlobs, ...pendingBlobs];
    pendingBlobs = [];
    const seqs = events.map((event) => event.seq);
    const data = events.map((event) => JSON.stringify(event));
    const expected = (seqs[0] as number) - 1;
    const last = seqs[seqs.length - 1] as number;
    const outcome = context.syncChannel().run({
      sql: insert,
      diagnoseSql: `SELECT lease_token, lease_owner, last_seq FROM ${s}.spine_sessions WHERE id = $1`,
      sessionId,
      token,
      leaseMs,
      seqs,
      data,
      ...(blobs.length > 0 ? { blobs, blobSql: blobInsertSql(context.schema) } : {}),
    });
    if (outcome.status === 'ok') {
      storedSeq = Math.max(storedSeq, last);
      return;
    }
    failure ??=
      outcome.status === 'lease-lost'
        ? new LeaseLostError({ sessionId, token, owner: outcome.owner })
        : outcome.status === 'conflict'
          ? new AppendConflictError({
              sessionId,
              expectedLastSeq: expected,
              storedLastSeq: outcome.storedLastSeq,
            })
          : outcome.sqlState
            ? (translate(
                Object.assign(new Error(outcome.message), { code: outcome.sqlState }),
                describe(),
              ) as Error)
            : new StoreUnavailableError({
                message: `Session ${sessionId}: a write-ahead append failed (${outcome.message}); reopen the session to continue`,
              });
    raise();
  };

  const drain = async (): Promise<void> => {
    while ((pending.length > 0 || pendingBlobs.length > 0) && !failure) {
      if (pendingBlobs.length > 0) {
        const blobs = pendingBlobs;
        pendingBlobs = [];
        sendingBlobs = blobs;
        try {
          await writeBlobs(pool, { schema: context.schema, sessionId, token }, blobs);
        } catch (error) {
          failure = error instanceof Error ? error : new Error(String(error));
          break;
        } finally {
          sendingBlobs = [];
        }
      }
      if (pending.length === 0) continue;
      const batch = pending;
      pending = [];
      sending = batch;
      try {
        await write(batch);
      } catch (error) {
        failure = error as Error;
      }
      sending = [];
    }
    inflight = undefined;
  };

  const raise = (): never => {
    reported = true;
    throw failure;
  };

  const renew = async (): Promise<void> => {
    if (closed || failure) return;
    try {
      const result = await pool.query(
        `UPDATE ${s}.spine_sessions SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
          WHERE id = $1 AND lease_token = $2`,
        [sessionId, token, leaseMs],
      );
      if (result.rowCount === 0 && !closed) failure ??= await diagnose(storedSeq);
    } catch {
      // A connection blip: the next append or renewal reports what is wrong.
    }
  };
  // Start the write-ahead channel (thread and connection) now, not inside the first blocking call.
  if (!readOnly && context.durableTypes.size > 0) context.syncChannel();
  const heartbeat = readOnly ? undefined : setInterval(renew, Math.max(50, leaseMs / 3));
  heartbeat?.unref();

  const settle = async (): Promise<void> => {
    while (inflight) await inflight;
  };

  const blobs: StoreBlobs = {
    put(sha256: string, bytes: Uint8Array): void {
      if (closed || readOnly)
        throw new SessionClosedError({ sessionId, reason: readOnly ? 'read-only' : 'closed' });
      if (failure) raise();
      if (context.blobs.has(sha256)) return;
      const copy = Uint8Array.from(bytes);
      context.blobs.set(sha256, copy);
      pendingBlobs.push({ sha256, bytes: copy });
      inflight ??= drain();
    },
    get: (sha256: string) => context.blobs.get(sha256),
  };

  return {
    events: context.events,
    lastSeq: context.lastSeq,
    blobs,
    append(batch: readonly SessionEvent[]): void {
      if (closed || readOnly)
        throw new SessionClosedError({ sessionId, reason: readOnly ? 'read-only' : 'closed' });
      if (failure) raise();
      if (batch.length === 0) return;
      for (const event of batch) {
        if (event.seq !== lastSeq + 1) {
          throw new AppendConflictError({ sessionId, expectedLastSeq: lastSeq });
        }
        lastSeq = event.seq;
      }
      if (batch.some((event) => context.durableTypes.has(event.type))) {
        writeNow(batch);
        return;
      }
      pending.push(...batch);
      inflight ??= drain();
    },
    async flush(): Promise<void> {
      await settle();
      if (failure && !closed) raise();
    },
    async writeSnapshot(snapshot: StoredSnapshot): Promise<void> {
      if (closed || readOnly)
        throw new SessionClosedError({ sessionId, reason: readOnly ? 'read-only' : 'closed' });
      await settle();
      if (failure) raise();
      if (!Number.isInteger(snapshot.seq) || snapshot.seq < 1 || snapshot.seq > storedSeq) {
        throw new InvalidRangeError({
          reason: `snapshot seq ${snapshot.seq} is not an appended seq (the log ends at ${storedSeq})`,
        });
      }
      // Stored only while this writer still holds the lease (the fencing token is checked).
      const parts = splitSnapshot(snapshot.data);
      const result = await pool.query<{ stored: number }>(snapshotWriteSql(context.schema), [
        sessionId,
        token,
        snapshot.seq,
        parts.length,
        parts,
      ]);
      if (result.rows[0]?.stored !== 1) {
        failure ??= await diagnose(storedSeq);
        raise();
      }
    },
    // Every append is already on its way to the server, where a commit is durable.
    checkpoint(): void {},
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (heartbeat) clearInterval(heartbeat);
      if (readOnly) return;
      await settle();
      await pool
        .query(
          `UPDATE ${s}.spine_sessions
              SET lease_owner = NULL, lease_host = NULL, lease_pid = NULL, lease_expires_at = NULL
            WHERE id = $1 AND lease_token = $2`,
          [sessionId, token],
        )
        .catch(() => {});
      if (failure && !reported) raise();
    },
  };
}
