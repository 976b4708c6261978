import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  InvalidSessionIdError,
  migratePostgresStore,
  type PostgresStore,
} from '../src/index.js';
import { dropSchema, freshSchema, startTestServer, type TestServer } from './server.js';

let server: TestServer;
let schema: string;
let store: PostgresStore;

beforeAll(async () => {
  server = await startTestServer();
  schema = freshSchema('props');
  await migratePostgresStore({ connectionString: server.url, schema });
  store = createPostgresStore({ connectionString: server.url, schema });
});

afterAll(async () => {
  await store?.close();
  if (server) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// JSON as an event body can hold it: any string (NUL, lone surrogates, separators), numbers that
// survive JSON (no -0), nested objects and arrays.
const body = fc
  .jsonValue({ maxDepth: 3, stringUnit: 'binary' })
  .map((value) => JSON.parse(JSON.stringify(value)));

describe('what the PostgreSQL store keeps', () => {
  it('gives back any storable session id and any JSON bodies exactly, in order, and refuses the rest with a typed error', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }),
        fc.array(body, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        async (name, bodies, batch) => {
          n += 1;
          const id = `${n}:${name}`;
          const at = new Date().toISOString();
          const storable = !id.includes('\u0000') && !LONE_SURROGATE.test(id);
          const header: SessionEvent = {
            seq: 1,
            type: 'session/header',
            at,
            body: { sessionId: id, formatVersion: 1, createdAt: at, title: name },
          };
          if (!storable) {
            // Refused with a typed error, and looked up as absent, never a driver error.
            await expect(store.create(header)).rejects.toBeInstanceOf(InvalidSessionIdError);
            expect(await store.exists(id)).toBe(false);
            await expect(store.open(id)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
            return;
          }
          const writer = await store.create({
            seq: 1,
            type: 'session/header',
            at,
            body: { sessionId: id, formatVersion: 1, createdAt: at, title: name },
          });
          const events: SessionEvent[] = bodies.map((value, index) => ({
            seq: index + 2,
            type: 'note/prop',
            at,
            body: value,
          }));
          for (let i = 0; i < events.length; i += batch) writer.append(events.slice(i, i + batch));
          await writer.close();
          const reopened = await store.open(id, { readOnly: true });
          expect(reopened.events.slice(1)).toEqual(events);
          await reopened.close();
          const ranged: SessionEvent[] = [];
          for await (const event of store.readRange(id, { fromSeq: 2 })) ranged.push(event);
          expect(ranged).toEqual(events);
          expect(await store.exists(id)).toBe(true);
          const listed = (await store.list({ limit: 1 }))[0];
          expect(listed?.id).toBe(id);
          expect(listed?.header.title).toBe(name);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
