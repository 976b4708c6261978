// Snapshots in parts (migration 4): any text comes back exactly, whatever falls on a part boundary;
// a shorter snapshot leaves no stale parts; a writer that lost its lease stores nothing; and a
// database at schema 3, holding a snapshot written whole, migrates and still opens from it.

import type { SessionEvent } from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  LeaseLostError,
  migratePostgresStore,
  POSTGRES_MIGRATIONS,
  type PostgresStore,
} from '../src/index.js';
import { PART_UNITS, splitSnapshot } from '../src/internal/snapshots.js';
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
const schemas: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  schema = freshSchema('parts');
  schemas.push(schema);
  await migratePostgresStore({ connectionString: server.url, schema });
  store = createPostgresStore({ connectionString: server.url, schema });
});

afterAll(async () => {
  await store?.close();
  for (const name of schemas) if (server) await dropSchema(server.url, name).catch(() => {});
  await server?.stop();
});

const sql = <T extends pg.QueryResultRow>(text: string, params: unknown[] = []) =>
  query<T>(server.url, text, params);
async function partCount(where: string, id: string): Promise<number> {
  const rows = await sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${where}".spine_snapshot_parts WHERE session_id = $1`,
    [id],
  );
  return rows[0]?.n ?? -1;
}

describe('snapshots kept in parts', () => {
  it('never cuts a surrogate pair and loses nothing when joined', () => {
    const pair = '\u{1F600}';
    const text = `${'a'.repeat(PART_UNITS - 1)}${pair}${'é'.repeat(PART_UNITS)}${pair}`;
    const parts = splitSnapshot(text);
    expect(parts.join('')).toBe(text);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(PART_UNITS);
      // No lone surrogate at either end of a part.
      expect(part).not.toMatch(
        /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
      );
    }
    expect(splitSnapshot('')).toEqual([]);
  });

  it('gives back any snapshot text exactly, and a shorter one after it leaves no stale parts', async () => {
    const writer = await store.create(sessionHeader('big'));
    const pair = '\u{1F600}';
    // Pairs, multi-byte characters and JSON escapes on and around every part boundary.
    const unit = `${'x'.repeat(PART_UNITS - 1)}${pair}"\\\n{é€}`;
    const long = unit.repeat(5);
    await writer.writeSnapshot({ seq: 1, data: long });
    expect(await store.readSnapshot('big')).toEqual({ seq: 1, data: long });
    expect(await partCount(schema, 'big')).toBe(splitSnapshot(long).length);
    await writer.writeSnapshot({ seq: 1, data: 'short' });
    expect(await store.readSnapshot('big')).toEqual({ seq: 1, data: 'short' });
    expect(await partCount(schema, 'big')).toBe(1);
    await writer.writeSnapshot({ seq: 1, data: '' });
    expect(await store.readSnapshot('big')).toEqual({ seq: 1, data: '' });
    await writer.close();
    expect(await store.readSnapshot('big')).toEqual({ seq: 1, data: '' });
  });

  it('says a session has no snapshot, and refuses an unknown session', async () => {
    await (await store.create(sessionHeader('none'))).close();
    expect(await store.readSnapshot('none')).toBeUndefined();
    await expect(store.readSnapshot('missing')).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
  });

  it('stores nothing for a writer whose lease was taken over', async () => {
    const writer = await store.create(sessionHeader('fenced'));
    await writer.writeSnapshot({ seq: 1, data: 'kept' });
    await sql(
      `UPDATE "${schema}".spine_sessions SET lease_token = lease_token + 1 WHERE id = 'fenced'`,
    );
    await expect(writer.writeSnapshot({ seq: 1, data: 'lost'.repeat(PART_UNITS) })).rejects.toThrow(
      LeaseLostError,
    );
    expect(await store.readSnapshot('fenced')).toEqual({ seq: 1, data: 'kept' });
    expect(await partCount(schema, 'fenced')).toBe(1);
    await writer.close().catch(() => {});
  });
});

describe('migration 4 from a schema-3 database', () => {
  it('keeps a snapshot written whole readable, opens the session from it, and writes the next one in parts', async () => {
    // A session with a snapshot, built in memory and copied into the schema-3 tables as the
    // store of that version wrote them (the snapshot whole in spine_snapshots.data).
    const memory = createMemoryStore();
    const built = await Session.create({ store: memory, id: 'old', snapshots: false });
    built.attachToSnapshots('marker', () => 'from the old snapshot');
    for (let turn = 1; turn <= 3; turn++) {
      built.append('turn/start', {}, { turn });
      built.append(
        'user/message',
        { content: `question ${turn} ${'é'.repeat(PART_UNITS)}`, source: 'user' },
        { turn, surfaceOp: { op: 'append' } },
      );
      built.append(
        'assistant/message',
        { content: [{ type: 'text', text: `answer ${turn}` }], finishReason: 'stop' },
        { turn, step: 1, surfaceOp: { op: 'append' } },
      );
      built.append('turn/end', { reason: 'completed' }, { turn });
    }
    await built.snapshot();
    const snapshot = await memory.readSnapshot('old');
    const events: SessionEvent[] = [];
    for await (const event of memory.readRange('old', { fromSeq: 1 })) events.push(event);
    const messages = built.deriveMessages();
    await built.close();
    if (!snapshot) throw new Error('no snapshot written');

    const old = freshSchema('partsold');
    schemas.push(old);
    const quoted = `"${old}"`;
    await sql(`CREATE SCHEMA ${quoted}`);
    await sql(
      `CREATE TABLE ${quoted}.spine_schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
    for (const migration of POSTGRES_MIGRATIONS.filter((step) => step.version <= 3)) {
      await sql(migration.sql(quoted));
      await sql(`INSERT INTO ${quoted}.spine_schema_migrations VALUES ($1, $2)`, [
        migration.version,
        migration.description,
      ]);
    }
    await sql(
      `INSERT INTO ${quoted}.spine_sessions (id, header, last_seq) VALUES ('old', $1, $2)`,
      [JSON.stringify(events[0]?.body), events.length],
    );
    await sql(
      `INSERT INTO ${quoted}.spine_events (session_id, seq, data)
       SELECT 'old', t.seq, t.data FROM unnest($1::bigint[], $2::text[]) AS t(seq, data)`,
      [events.map((event) => event.seq), events.map((event) => JSON.stringify(event))],
    );
    await sql(
      `INSERT INTO ${quoted}.spine_snapshots (session_id, seq, data) VALUES ('old', $1, $2)`,
      [snapshot.seq, snapshot.data],
    );

    const result = await migratePostgresStore({ connectionString: server.url, schema: old });
    expect(result).toMatchObject({ from: 3, to: 4 });
    expect(result.applied.map((step) => step.version)).toEqual([4]);
    const migrated = createPostgresStore({ connectionString: server.url, schema: old });
    try {
      expect(await migrated.readSnapshot('old')).toEqual(snapshot);
      const reader = await Session.open({
        store: migrated,
        id: 'old',
        history: 'lazy',
        readOnly: true,
      });
      // Opened from the old snapshot (its attachment is there), not rebuilt from the log.
      expect(reader.snapshotAttachment('marker')).toEqual({
        seq: snapshot.seq,
        value: 'from the old snapshot',
      });
      expect(reader.deriveMessages()).toEqual(messages);
      await reader.close();

      const writer = await Session.open({ store: migrated, id: 'old', history: 'lazy' });
      writer.append('turn/start', {}, { turn: 4 });
      await writer.snapshot();
      await writer.close();
      const rows = await sql<{ whole: boolean; parts: number }>(
        `SELECT data IS NOT NULL AS whole, parts FROM ${quoted}.spine_snapshots WHERE session_id = 'old'`,
      );
      expect(rows).toEqual([{ whole: false, parts: await partCount(old, 'old') }]);
      expect(rows[0]?.parts).toBeGreaterThan(1);
      const reopened = await Session.open({ store: migrated, id: 'old', history: 'lazy' });
      expect(reopened.lastSeq).toBe(events.length + 1);
      expect(reopened.deriveMessages()).toEqual(messages);
      await reopened.close();
    } finally {
      await migrated.close();
    }
  });
});
