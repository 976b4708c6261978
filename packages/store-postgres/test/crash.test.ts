import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { SessionEvent } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, migratePostgresStore, type PostgresStore } from '../src/index.js';
import { bundle, type RunningChild, startChild } from './child.js';
import { dropSchema, freshSchema, startTestServer, type TestServer } from './server.js';

const RUNS = 50;
let server: TestServer;
let schema: string;
let store: PostgresStore;
let childFile: string;
const folder = mkdtempSync(join(tmpdir(), 'spine-pg-crash-'));
const children: RunningChild[] = [];

beforeAll(async () => {
  server = await startTestServer();
  schema = freshSchema('crash');
  await migratePostgresStore({ connectionString: server.url, schema });
  store = createPostgresStore({ connectionString: server.url, schema, leaseMs: 30_000 });
  childFile = await bundle('./writer-child.ts', join(folder, 'writer-child.mjs'));
});

afterAll(async () => {
  for (const running of children) running.child.kill('SIGKILL');
  await store?.close();
  if (server) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('SIGKILL of a writer at random points', () => {
  it(`keeps every acknowledged event, gapless, and the session resumes in another process (${RUNS} runs)`, async () => {
    const header = await store.create({
      seq: 1,
      type: 'session/header',
      at: new Date().toISOString(),
      body: { sessionId: 'crashy', formatVersion: 1, createdAt: new Date().toISOString() },
    });
    await header.close();
    let acknowledged = 1;
    for (let run = 0; run < RUNS; run++) {
      const running = startChild(childFile, [server.url, schema, 'crashy', 'loop', '30000']);
      children.push(running);
      await running.waitFor((line) => line.startsWith('opened'));
      await delay(Math.floor(Math.random() * 120));
      running.child.kill('SIGKILL');
      await running.exited;
      const acked = running.lines
        .filter((line) => line.startsWith('acked '))
        .map((line) => Number(line.slice(6)));
      acknowledged = Math.max(acknowledged, ...acked);
      // This process resumes the session: the dead holder's lease is taken over at once.
      const resumed = await store.open('crashy');
      const events: readonly SessionEvent[] = resumed.events;
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(resumed.lastSeq).toBeGreaterThanOrEqual(acknowledged);
      const next = resumed.lastSeq + 1;
      resumed.append([
        { seq: next, type: 'note/parent', at: new Date().toISOString(), body: { run } },
      ]);
      await resumed.close();
      acknowledged = next;
    }
    const all: SessionEvent[] = [];
    for await (const event of store.readRange('crashy', { fromSeq: 1 })) all.push(event);
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    expect(all.filter((event) => event.type === 'note/parent')).toHaveLength(RUNS);
    expect(all.filter((event) => event.type === 'lease/takeover').length).toBe(RUNS);
    expect(all.filter((event) => event.type === 'note/child').length).toBeGreaterThan(RUNS);
  }, 240_000);

  it('has committed tool/started (and everything before it) when its append returns: 20 kills right after', async () => {
    for (let run = 0; run < 20; run++) {
      const id = `ahead-${run}`;
      const header = await store.create({
        seq: 1,
        type: 'session/header',
        at: new Date().toISOString(),
        body: { sessionId: id, formatVersion: 1, createdAt: new Date().toISOString() },
      });
      await header.close();
      const running = startChild(childFile, [server.url, schema, id, 'write-ahead', '30000']);
      children.push(running);
      await running.exited;
      expect(running.lines[0]).toBe('opened 1');
      const events: SessionEvent[] = [];
      for await (const event of store.readRange(id, { fromSeq: 1 })) events.push(event);
      expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(events.at(-1)?.type).toBe('tool/started');
    }
  }, 240_000);

  it('has committed the blob a tool/started follows when its append returns: 10 kills right after', async () => {
    for (let run = 0; run < 10; run++) {
      const id = `ahead-image-${run}`;
      const header = await store.create({
        seq: 1,
        type: 'session/header',
        at: new Date().toISOString(),
        body: { sessionId: id, formatVersion: 1, createdAt: new Date().toISOString() },
      });
      await header.close();
      const running = startChild(childFile, [server.url, schema, id, 'write-ahead-image', '30000']);
      children.push(running);
      await running.exited;
      expect(running.lines[0]).toBe('opened 1');
      const sha256 = running.lines.find((line) => line.startsWith('put '))?.slice(4) ?? '';
      expect(sha256).toMatch(/^[0-9a-f]{64}$/);
      const resumed = await store.open(id);
      try {
        expect(resumed.events.map((event) => event.type)).toEqual([
          'session/header',
          'user/message',
          'tool/started',
          'lease/takeover',
        ]);
        const bytes = resumed.blobs.get(sha256);
        expect(bytes?.byteLength).toBe(2 * 1024 * 1024);
        expect(
          createHash('sha256')
            .update(bytes ?? new Uint8Array())
            .digest('hex'),
        ).toBe(sha256);
      } finally {
        await resumed.close();
      }
    }
  }, 240_000);
});
