// Following a session from another connection: LISTEN/NOTIFY is only a wake-up; the follower
// reads by seq after the last event it delivered, so a dropped or coalesced notification delays
// an event by at most `pollMs` and never loses one.

import type { SessionEvent } from '@spine/protocol';
import type { Client, Notification, Pool } from 'pg';
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
  /** The store's one listening connection, shared by all its followers. */
  listener: NotifyListener;
}

/** Called with the session and seq of each commit notification. */
type Wake = (schema: string, session: string, seq: number) => void;

/**
 * One dedicated `LISTEN spine_events` connection per store, outside the pool, multiplexing every
 * followed session: following never holds a pool connection, so any number of followers leaves
 * the pool to queries. Connected while at least one follower exists; a broken connection is
 * dropped and made again by the next follower round (polling delivers meanwhile).
 */
export interface NotifyListener {
  /** Registers `wake` and makes sure the connection listens; returns the unsubscribe. */
  subscribe(wake: Wake): () => void;
  /** Listens again if the connection broke (a no-op while it listens). */
  ensure(): Promise<void>;
  /** Ends the connection. */
  close(): Promise<void>;
}

/** Makes the store's listener; `connect` opens a fresh (unpooled) client. */
export function createNotifyListener(connect: () => Promise<Client>): NotifyListener {
  const wakes = new Set<Wake>();
  let client: Client | undefined;
  let opening: Promise<void> | undefined;
  const drop = (broken: Client): void => {
    if (client !== broken) return;
    client = undefined;
    broken.end().catch(() => {});
  };
  const onNotification = (message: Notification): void => {
    if (message.channel !== 'spine_events' || !message.payload) return;
    try {
      const payload = JSON.parse(message.payload) as {
        schema?: string;
        session?: string;
        seq?: number;
      };
      for (const wake of wakes) wake(payload.schema ?? '', payload.session ?? '', payload.seq ?? 0);
    } catch {
      // Not ours.
    }
  };
  const open = async (): Promise<void> => {
    const fresh = await connect();
    fresh.on('notification', onNotification);
    fresh.on('error', () => drop(fresh));
    fresh.on('end', () => drop(fresh));
    client = fresh;
    try {
      await fresh.query('LISTEN spine_events');
    } catch {
      drop(fresh);
    }
    if (wakes.size === 0) drop(fresh);
  };
  const ensure = async (): Promise<void> => {
    if (client || wakes.size === 0) return;
    opening ??= open()
      .catch(() => {})
      .finally(() => {
        opening = undefined;
      });
    await opening;
  };
  return {
    subscribe(wake) {
      wakes.add(wake);
      return () => {
        wakes.delete(wake);
        if (wakes.size === 0 && client) drop(client);
      };
    },
    ensure,
    async close() {
      wakes.clear();
      await opening;
      if (client) drop(client);
    },
  };
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
  const { pool, schema, where, listener } = await source();
  const pollMs = options.pollMs ?? 1000;
  const signal = options.signal;
  let last = options.afterSeq ?? 0;
  let wake: (() => void) | undefined;
  let woken = false;
  const rouse = (): void => {
    woken = true;
    wake?.();
  };
  const unsubscribe = listener.subscribe((notifiedSchema, session, seq) => {
    if (notifiedSchema === schema && session === sessionId && seq > last) rouse();
  });
  const timer = setInterval(rouse, pollMs);
  signal?.addEventListener('abort', rouse, { once: true });
  try {
    await listener.ensure();
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
      await listener.ensure();
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
    unsubscribe();
  }
}
