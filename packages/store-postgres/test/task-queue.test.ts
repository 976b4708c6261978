import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresTaskQueue,
  InvalidTaskError,
  migratePostgresStore,
  type PostgresTaskQueue,
} from '../src/index.js';
import { dropSchema, freshSchema, startTestServer, type TestServer } from './server.js';

let server: TestServer;
const schemas: string[] = [];
const queues: PostgresTaskQueue[] = [];

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  for (const queue of queues) await queue.close();
  for (const schema of schemas) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
});

async function freshQueue(leaseMs = 30_000): Promise<PostgresTaskQueue> {
  const schema = freshSchema('queue');
  schemas.push(schema);
  await migratePostgresStore({ connectionString: server.url, schema });
  const queue = createPostgresTaskQueue({ connectionString: server.url, schema, leaseMs });
  queues.push(queue);
  return queue;
}

describe('the task queue', () => {
  it('hands each of 40 tasks to exactly one of 6 concurrent claimers (SKIP LOCKED)', async () => {
    const queue = await freshQueue();
    for (let n = 0; n < 40; n++) await queue.submit({ prompt: `task ${n}`, workspace: '/srv/w' });
    const claimed: string[][] = await Promise.all(
      Array.from({ length: 6 }, async (_, worker) => {
        const mine: string[] = [];
        for (;;) {
          const task = await queue.claim(`w${worker}`);
          if (!task) return mine;
          mine.push(task.id);
          expect(await queue.finish(task, { status: 'done', result: { by: worker } })).toBe(true);
        }
      }),
    );
    const all = claimed.flat();
    expect(all).toHaveLength(40);
    expect(new Set(all).size).toBe(40);
    const listed = await queue.list();
    expect(listed.every((task) => task.status === 'done' && task.attempts === 1)).toBe(true);
  });

  it('lets another worker take a task whose claim expired, and fences the old claim off', async () => {
    const queue = await freshQueue(300);
    await queue.submit(
      { prompt: 'long', workspace: '/srv/w' },
      { id: 'long', sessionId: 's-long' },
    );
    const first = await queue.claim('a');
    expect(first).toMatchObject({ id: 'long', sessionId: 's-long', attempts: 1, worker: 'a' });
    expect(await queue.claim('b')).toBeUndefined();
    await delay(700);
    const second = await queue.claim('b');
    expect(second).toMatchObject({ id: 'long', attempts: 2, worker: 'b', status: 'running' });
    expect(await queue.heartbeat(first!)).toBe(false);
    expect(await queue.finish(first!, { status: 'done' })).toBe(false);
    expect(await queue.release(first!)).toBe(false);
    expect(await queue.heartbeat(second!)).toBe(true);
    expect(await queue.release(second!)).toBe(true);
    const third = await queue.claim('c');
    expect(third).toMatchObject({ attempts: 3, worker: 'c' });
    expect(await queue.finish(third!, { status: 'failed', result: { error: 'x' } })).toBe(true);
    expect(await queue.get('long')).toMatchObject({ status: 'failed', result: { error: 'x' } });
    expect(await queue.claim('d')).toBeUndefined();
  });

  it('keeps any task text exactly and refuses a spec without a prompt or workspace', async () => {
    const queue = await freshQueue();
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        async (prompt, workspace) => {
          fc.pre(prompt.trim().length > 0 && workspace.trim().length > 0);
          const task = await queue.submit({ prompt, workspace });
          expect((await queue.get(task.id))?.spec).toEqual({ prompt, workspace });
        },
      ),
      { numRuns: 60 },
    );
    await expect(queue.submit({ prompt: ' ', workspace: '/w' })).rejects.toBeInstanceOf(
      InvalidTaskError,
    );
    await expect(queue.submit({ prompt: 'p', workspace: '' })).rejects.toBeInstanceOf(
      InvalidTaskError,
    );
  });
});
