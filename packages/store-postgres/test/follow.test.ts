import { setTimeout as delay } from 'node:timers/promises';
import type { SessionEvent } from '@spine/protocol';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, migratePostgresStore, type PostgresStore } from '../src/index.js';
import {
  dropSchema,
  freshSchema,
  sessionHeader,
  startTestServer,
  type TestServer,
} from './server.js';

let server: TestServer;
let schema: string;
let writerStore: PostgresStore;
let followerStore: PostgresStore;

beforeAll(async () => {
  server = await startTestServer();
  schema = freshSchema('follow');
  await migratePostgresStore({ connectionString: server.url, schema });
  writerStore = createPostgresStore({ connectionString: server.url, schema });
  followerStore = createPostgresStore({ connectionString: server.url, schema });
});

afterAll(async () => {
  await writerStore?.close();
  await followerStore?.close();
  if (server) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
});

const note = (seq: number): SessionEvent => ({
  seq,
  type: 'note/follow',
  at: new Date().toISOString(),
  body: { seq },
});

/** Collects followed events until `count` arrived, then aborts the follower. */
async function collect(
  id: string,
  count: number,
  options: { pollMs: number; afterSeq?: number },
): Promise<SessionEvent[]> {
  const controller = new AbortController();
  const seen: SessionEvent[] = [];
  for await (const event of followerStore.follow(id, { ...options, signal: controller.signal })) {
    seen.push(event);
    if (seen.length === count) controller.abort();
  }
  return seen;
}

async function setTrigger(enabled: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(
    `ALTER TABLE "${schema}".spine_events ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER spine_events_notify`,
  );
  await client.end();
}

describe('following a session from another connection', () => {
  it('is woken by NOTIFY: events arrive long before the poll interval', async () => {
    const writer = await writerStore.create(sessionHeader('woken'));
    const followed = collect('woken', 20, { pollMs: 600_000, afterSeq: 1 });
    await delay(300);
    const started = Date.now();
    for (let seq = 2; seq <= 21; seq++) {
      writer.append([note(seq)]);
      await writer.flush();
    }
    const seen = await followed;
    expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    // Without a notification nothing would arrive for ten minutes.
    expect(Date.now() - started).toBeLessThan(60_000);
    await writer.close();
  }, 90_000);

  it('sees every event in order while notifications are dropped (the trigger disabled mid-stream)', async () => {
    const writer = await writerStore.create(sessionHeader('dropped'));
    const followed = collect('dropped', 300, { pollMs: 100 });
    let seq = 1;
    const burst = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        seq += 1;
        writer.append([note(seq)]);
        if (i % 7 === 0) await writer.flush();
      }
      await writer.flush();
    };
    await burst(100);
    await setTrigger(false);
    try {
      await burst(100);
      await delay(200);
    } finally {
      await setTrigger(true);
    }
    await burst(99);
    const seen = await followed;
    expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(seen[0]?.type).toBe('session/header');
    await writer.close();
  }, 90_000);

  it('ends when its signal aborts while waiting, and releases its listening connection', async () => {
    const writer = await writerStore.create(sessionHeader('quiet'));
    const controller = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const event of followerStore.follow('quiet', { signal: controller.signal })) {
        seen.push(event.seq);
      }
    })();
    await delay(300);
    controller.abort();
    await done;
    expect(seen).toEqual([1]);
    await writer.close();
  });

  it('follows 50 sessions at once with the default pool of 10, and queries still get connections', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `many-${i}`);
    const writers = await Promise.all(ids.map((id) => writerStore.create(sessionHeader(id))));
    const followed = ids.map((id) => collect(id, 2, { pollMs: 600_000 }));
    await delay(300);
    // Every follower is waiting now; the pool must still serve queries.
    const listed = await followerStore.list();
    expect(listed.map((row) => row.id)).toEqual(expect.arrayContaining(ids));
    expect(await followerStore.exists('many-0')).toBe(true);
    for (const writer of writers) writer.append([note(2)]);
    await Promise.all(writers.map((writer) => writer.flush()));
    const seen = await Promise.all(followed);
    for (const events of seen) expect(events.map((event) => event.seq)).toEqual([1, 2]);
    await Promise.all(writers.map((writer) => writer.close()));
  }, 90_000);
});
