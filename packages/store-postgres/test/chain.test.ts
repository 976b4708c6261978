// The per-row SHA-256 chain: computed by the database on every insert (asynchronous appends,
// write-ahead appends, create), recomputed the same way in JavaScript for any text, back-filled
// by the migration for rows written before it, and broken by a row edited, deleted or reordered
// in the database, which verifyPostgresChain names.

import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  migratePostgresStore,
  POSTGRES_MIGRATIONS,
  type PostgresStore,
  verifyPostgresChain,
} from '../src/index.js';
import {
  dropSchema,
  freshSchema,
  query,
  sessionHeader,
  startTestServer,
  type TestServer,
} from './server.js';

let server: TestServer;
let schema: string;
let store: PostgresStore;

beforeAll(async () => {
  server = await startTestServer();
  schema = freshSchema('chain');
  await migratePostgresStore({ connectionString: server.url, schema });
  store = createPostgresStore({ connectionString: server.url, schema });
});

afterAll(async () => {
  await store?.close();
  if (server) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
});

async function sql(text: string, params: unknown[] = []): Promise<void> {
  await query(server.url, text, params);
}

const event = (seq: number, type = 'note/chain', body: unknown = { seq }): SessionEvent => ({
  seq,
  type,
  at: new Date().toISOString(),
  body,
});

/** A session of 8 events written through every path (create, async batches, write-ahead). */
async function written(id: string): Promise<void> {
  const writer = await store.create(sessionHeader(id));
  writer.append([event(2), event(3)]);
  writer.append([event(4, 'tool/started', { callId: 'c', name: 'bash' })]);
  writer.append([event(5), event(6), event(7)]);
  writer.append([event(8)]);
  await writer.close();
}

const verify = (id: string) => verifyPostgresChain({ connectionString: server.url, schema }, id);

describe('the per-row chain', () => {
  it('verifies a session written through every append path', async () => {
    await written('intact');
    const result = await verify('intact');
    expect(result).toMatchObject({ ok: true, events: 8 });
    expect(result.head).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names an edited row', async () => {
    await written('edited');
    await sql(
      `UPDATE "${schema}".spine_events SET data = replace(data, '"seq":5}', '"seq":5,"x":1}') WHERE session_id = 'edited' AND seq = 5`,
    );
    const result = await verify('edited');
    expect(result.ok).toBe(false);
    expect(result.problem).toMatchObject({ seq: 5, kind: 'edited' });
    expect(result.problem?.message).toContain('row seq 5');
  });

  it('names a deleted row, in the middle and at the end', async () => {
    await written('deleted');
    await sql(`DELETE FROM "${schema}".spine_events WHERE session_id = 'deleted' AND seq = 4`);
    expect((await verify('deleted')).problem).toMatchObject({ seq: 4, kind: 'deleted' });
    await written('tail');
    await sql(`DELETE FROM "${schema}".spine_events WHERE session_id = 'tail' AND seq = 8`);
    expect((await verify('tail')).problem).toMatchObject({ seq: 8, kind: 'deleted' });
  });

  it('names reordered rows (two rows swapped their seqs)', async () => {
    await written('swapped');
    const t = `"${schema}".spine_events`;
    await sql(`UPDATE ${t} SET seq = -6 WHERE session_id = 'swapped' AND seq = 6`);
    await sql(`UPDATE ${t} SET seq = 6 WHERE session_id = 'swapped' AND seq = 3`);
    await sql(`UPDATE ${t} SET seq = 3 WHERE session_id = 'swapped' AND seq = -6`);
    expect((await verify('swapped')).problem).toMatchObject({ seq: 3, kind: 'reordered' });
  });

  it('hashes any text the same in the database and in JavaScript', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { minLength: 1, maxLength: 6 }),
        async (texts) => {
          n += 1;
          const id = `any-${n}-${texts[0] ?? ''}`.replaceAll('\u0000', '');
          const writer = await store.create(sessionHeader(id));
          writer.append(texts.map((text, i) => event(i + 2, 'note/text', { text })));
          await writer.close();
          expect(await verify(id)).toMatchObject({ ok: true, events: texts.length + 1 });
        },
      ),
      { numRuns: 15 },
    );
  });

  it('back-fills the chain of rows written before the migration', async () => {
    const old = freshSchema('chainold');
    const quoted = `"${old}"`;
    const first = POSTGRES_MIGRATIONS[0];
    if (!first) throw new Error('no migration 1');
    await sql(`CREATE SCHEMA ${quoted}`);
    await sql(first.sql(quoted));
    await sql(
      `CREATE TABLE ${quoted}.spine_schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
    await sql(`INSERT INTO ${quoted}.spine_schema_migrations VALUES (1, 'v1')`);
    await sql(
      `INSERT INTO ${quoted}.spine_sessions (id, header, last_seq) VALUES ('before', '{}', 3)`,
    );
    for (const e of [sessionHeader('before'), event(2), event(3)]) {
      await sql(
        `INSERT INTO ${quoted}.spine_events (session_id, seq, data) VALUES ('before', $1, $2)`,
        [e.seq, JSON.stringify(e)],
      );
    }
    const result = await migratePostgresStore({ connectionString: server.url, schema: old });
    expect(result).toMatchObject({ from: 1, to: POSTGRES_MIGRATIONS.length });
    expect(
      await verifyPostgresChain({ connectionString: server.url, schema: old }, 'before'),
    ).toMatchObject({ ok: true, events: 3 });
    await dropSchema(server.url, old);
  });
});
