// Following a session from another connection: LISTEN/NOTIFY is only a wake-up; the follower
// reads by seq after the last event it delivered, so a dropped or coalesced notification delays
// an event by at most `pollMs` and never loses one.

import type { SessionEvent } from '@spine/protocol';
import type { Notification, Pool, PoolClient } from 'pg';
import { SessionCorruptError } from './errors.js';

/** Options of {@link PostgresStore.follow}. */
export interface FollowOptions {
  /** Deliver events with a seq greater than this (default 0: the whole log, then new events). */
  afterSeq?: number;
  /** Ends the iteration (it returns; it does not throw). */
  signal?: AbortSignal;
  /** How often to read even without a notification, in ms (default 1,000). */
  pollMs?: number;
}

interface Source {
  pool: Pool;
  schema: string;
  where: string;
}

/** The async iterable behind {@link PostgresStore.follow}. */
export function followEvents(
  source: () => Promise<Source>,
  sessionId: string,
  options: FollowOptions,
): AsyncIterable<SessionEvent> {
  return {
    [Symbol.asyncIterator]: () => follow(source, sessionId, options),
  };
}

async function* follow(
  source: () => Promise<Source>,
  sessionId: string,
  options: FollowOptions,
): AsyncGenerator<SessionEvent> {
  const { pool, schema, where } = await source();
  const pollMs = options.pollMs ?? 1000;
  const signal = options.signal;
  let last = options.afterSeq ?? 0;
  let wake: (() => void) | undefined;
  let woken = false;
  const rouse = (): void => {
    woken = true;
    wake?.();
  };
  const onNotification = (message: Notification): void => {
    if (message.channel !== 'spine_events' || !message.payload) return;
    try {
      const payload = JSON.parse(message.payload) as {
        schema?: string;
        session?: string;
        seq?: number;
      };
      if (payload.schema === schema && payload.session === sessionId && (payload.seq ?? 0) > last) {
        rouse();
      }
    } catch {
      // Not ours.
    }
  };
  let listener: PoolClient | undefined;
  const onError = (): void => {
    // The listening connection broke: drop it (polling still delivers) and listen again later.
    const broken = listener;
    listener = undefined;
    if (broken) {
      broken.off('notification', onNotification);
      broken.off('error', onError);
      broken.release(true);
    }
  };
  const listen = async (): Promise<void> => {
    if (listener) return;
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      client.on('notification', onNotification);
      client.on('error', onError);
      listener = client;
      await client.query('LISTEN spine_events');
    } catch {
      // Polling still delivers; the next round tries to listen again.
      if (client && listener === client) onError();
    }
  };
  const timer = setInterval(rouse, pollMs);
  signal?.addEventListener('abort', rouse, { once: true });
  try {
    await listen();
    while (!signal?.aborted) {
      woken = false;
      const rows = (
        await pool.query<{ seq: string; data: string }>(
          `SELECT seq, data FROM "${schema}".spine_events
            WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT 1000`,
          [sessionId, last],
        )
      ).rows;
      for (const row of rows) {
        const seq = Number(row.seq);
        if (seq !== last + 1) {
          throw new SessionCorruptError({
            where,
            seq: last + 1,
            reason: `seq ${seq} follows ${last}`,
          });
        }
        yield JSON.parse(row.data) as SessionEvent;
        last = seq;
        if (signal?.aborted) return;
      }
      if (rows.length === 1000) continue;
      if (!listener) await listen();
      if (!woken && !signal?.aborted) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    }
  } finally {
    clearInterval(timer);
    signal?.removeEventListener('abort', rouse);
    const client = listener;
    listener = undefined;
    if (client) {
      client.off('notification', onNotification);
      await client.query('UNLISTEN spine_events').catch(() => {});
      client.off('error', onError);
      client.release();
    }
  }
}
