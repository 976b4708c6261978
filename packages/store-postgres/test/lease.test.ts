import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { SessionEvent } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  LEASE_TAKEOVER_EVENT,
  migratePostgresStore,
  type PostgresStore,
} from '../src/index.js';
import { bundle, type RunningChild, startChild } from './child.js';
import { dropSchema, freshSchema, startTestServer, type TestServer } from './server.js';

const LEASE_MS = 1500;
let server: TestServer;
let schema: string;
let store: PostgresStore;
let childFile: string;
const folder = mkdtempSync(join(tmpdir(), 'spine-pg-lease-'));
const children: RunningChild[] = [];

beforeAll(async () => {
  server = await startTestServer();
  schema = freshSchema('lease');
  await migratePostgresStore({ connectionString: server.url, schema });
  store = createPostgresStore({ connectionString: server.url, schema, leaseMs: LEASE_MS });
  childFile = await bundle('./writer-child.ts', join(folder, 'writer-child.mjs'));
});

afterAll(async () => {
  for (const running of children) running.child.kill('SIGKILL');
  await store?.close();
  if (server) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

function writer(id: string): RunningChild {
  const running = startChild(childFile, [server.url, schema, id, 'serve', String(LEASE_MS)]);
  children.push(running);
  return running;
}

async function command(running: RunningChild, line: string): Promise<string> {
  const from = running.lines.length;
  running.child.stdin.write(`${line}\n`);
  return running.waitFor((text) => /^(acked|error|closed)/.test(text), from);
}

async function create(id: string): Promise<void> {
  const opened = await store.create({
    seq: 1,
    type: 'session/header',
    at: new Date().toISOString(),
    body: { sessionId: id, formatVersion: 1, createdAt: new Date().toISOString() },
  });
  await opened.close();
}

async function storedEvents(id: string): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of store.readRange(id, { fromSeq: 1 })) events.push(event);
  return events;
}

describe('one writer per session across processes', () => {
  it('gives the lease to exactly one of two processes; the other gets SESSION_LOCKED', async () => {
    await create('race');
    const [first, second] = [writer('race'), writer('race')];
    const outcomes = await Promise.all(
      [first, second].map((running) => running.waitFor((line) => /^(opened|error)/.test(line))),
    );
    expect(outcomes.filter((line) => line.startsWith('opened'))).toHaveLength(1);
    expect(
      outcomes.filter((line) => line === 'error SESSION_LOCKED SessionLockedError'),
    ).toHaveLength(1);
    const holder = outcomes[0]?.startsWith('opened') ? first : second;
    expect(await command(holder, 'append 4')).toBe('acked 5');
    expect(await command(holder, 'close')).toBe('closed');
    expect((await storedEvents('race')).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('fences off a writer paused past its lease (SIGSTOP, takeover, SIGCONT): it cannot append', async () => {
    await create('paused');
    const paused = writer('paused');
    expect(await paused.waitFor((line) => /^(opened|error)/.test(line))).toBe('opened 1');
    expect(await command(paused, 'append 5')).toBe('acked 6');
    const blocked = writer('paused');
    expect(await blocked.waitFor((line) => /^(opened|error)/.test(line))).toBe(
      'error SESSION_LOCKED SessionLockedError',
    );
    paused.child.kill('SIGSTOP');
    await delay(LEASE_MS + 1000);
    const successor = writer('paused');
    expect(await successor.waitFor((line) => /^(opened|error)/.test(line))).toBe('opened 7');
    expect(await command(successor, 'append 3')).toBe('acked 10');
    paused.child.kill('SIGCONT');
    expect(await command(paused, 'append 2')).toBe('error SESSION_LOCKED LeaseLostError');
    expect(await command(paused, 'append 1')).toBe('error SESSION_LOCKED LeaseLostError');
    expect(await command(successor, 'append 1')).toBe('acked 11');
    expect(await command(successor, 'close')).toBe('closed');
    await command(paused, 'close');
    const events = await storedEvents('paused');
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const takeover = events[6] as SessionEvent<Record<string, unknown>>;
    expect(takeover.type).toBe(LEASE_TAKEOVER_EVENT);
    expect(takeover.body).toMatchObject({
      reason: 'expired',
      previousOwner: expect.stringContaining(`child-${paused.child.pid}`),
      previousToken: 2,
      token: 3,
    });
    const pids = events.slice(7).map((event) => (event.body as { pid: number }).pid);
    expect(new Set(pids)).toEqual(new Set([successor.child.pid]));
  }, 60_000);

  it('names the live lease holder of one session until it closes or its lease expires', async () => {
    await create('held');
    expect(await store.leaseHolder('held')).toBeUndefined();
    const closing = writer('held');
    expect(await closing.waitFor((line) => /^(opened|error)/.test(line))).toBe('opened 1');
    expect(await store.leaseHolder('held')).toContain(`child-${closing.child.pid}`);
    expect(await command(closing, 'close')).toBe('closed');
    expect(await store.leaseHolder('held')).toBeUndefined();
    const stalled = writer('held');
    expect(await stalled.waitFor((line) => /^(opened|error)/.test(line))).toMatch(/^opened/);
    expect(await store.leaseHolder('held')).toContain(`child-${stalled.child.pid}`);
    stalled.child.kill('SIGSTOP');
    await delay(LEASE_MS + 500);
    expect(await store.leaseHolder('held')).toBeUndefined();
    stalled.child.kill('SIGKILL');
    expect(await store.leaseHolder('no-such-session')).toBeUndefined();
    expect(await store.leaseHolder('bad\u0000id')).toBeUndefined();
  }, 30_000);

  it('lets a process on the same host take over at once from a holder that exited', async () => {
    await create('exited');
    const holder = writer('exited');
    expect(await holder.waitFor((line) => line.startsWith('opened'))).toBe('opened 1');
    holder.child.kill('SIGKILL');
    await holder.exited;
    const opened = await store.open('exited');
    expect(opened.events.at(-1)?.type).toBe(LEASE_TAKEOVER_EVENT);
    expect(opened.events.at(-1)?.body).toMatchObject({ reason: 'holder-exited' });
    await opened.close();
  });
});
