// Roles that lack what Spine needs get a typed error naming the missing privilege and object,
// never "cannot reach PostgreSQL" (an outage) nor a raw driver error: a role without USAGE on the
// schema, one without INSERT (on the asynchronous and the write-ahead path), one that may not
// migrate; and a store configured with NUL in its owner label.

import type { SessionEvent } from '@spine/protocol';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  migratePostgresStore,
  StoreConfigError,
  StorePermissionError,
  StoreUnavailableError,
} from '../src/index.js';
import {
  dropSchema,
  freshSchema,
  sessionHeader,
  startTestServer,
  type TestServer,
} from './server.js';

let server: TestServer;
let schema: string;
const roles: string[] = [];
const suffix = `${process.pid}_${Date.now().toString(36)}`;

async function asAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Makes a login role with `grants` run after it exists; returns its URL. */
async function role(name: string, grants: string[]): Promise<string> {
  const full = `spine_${name}_${suffix}`;
  roles.push(full);
  await asAdmin(`CREATE ROLE ${full} LOGIN PASSWORD 'pw'`);
  for (const grant of grants) await asAdmin(grant.replaceAll('$role', full));
  const url = new URL(server.url);
  url.username = full;
  url.password = 'pw';
  return url.toString();
}

beforeAll(async () => {
  server = await startTestServer();
  schema = freshSchema('perm');
  await migratePostgresStore({ connectionString: server.url, schema });
});

afterAll(async () => {
  for (const name of roles) {
    await asAdmin(`DROP OWNED BY ${name}`).catch(() => {});
    await asAdmin(`DROP ROLE IF EXISTS ${name}`).catch(() => {});
  }
  if (server) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
});

describe('a role without the privileges Spine needs', () => {
  it('without USAGE on the schema: StorePermissionError naming the schema, not an outage', async () => {
    const url = await role('nousage', []);
    const store = createPostgresStore({ connectionString: url, schema });
    try {
      const error = await store.list().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(StorePermissionError);
      expect(error).not.toBeInstanceOf(StoreUnavailableError);
      expect((error as StorePermissionError).sqlState).toBe('42501');
      expect((error as Error).message).toContain(`schema ${schema}`);
      expect((error as Error).message).not.toContain('Cannot reach');
      expect((error as Error).message).not.toContain('pw@');
      expect((error as { code: string }).code).toBe('INVALID_CONFIG');
    } finally {
      await store.close();
    }
  });

  it('without INSERT: create fails with StorePermissionError naming the table', async () => {
    const url = await role('noinsert', [
      `GRANT USAGE ON SCHEMA "${schema}" TO $role`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO $role`,
    ]);
    const store = createPostgresStore({ connectionString: url, schema });
    try {
      expect(await store.list()).toBeInstanceOf(Array);
      const error = await store.create(sessionHeader('refused')).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(StorePermissionError);
      expect((error as Error).message).toMatch(
        /permission denied for table spine_(sessions|events)/,
      );
    } finally {
      await store.close();
    }
  });

  it('without INSERT on events: the write-ahead tool/started and flush fail with StorePermissionError', async () => {
    const admin = createPostgresStore({ connectionString: server.url, schema });
    const created = await admin.create(sessionHeader('leased'));
    await created.close();
    await admin.close();
    const url = await role('noevents', [
      `GRANT USAGE ON SCHEMA "${schema}" TO $role`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO $role`,
      `GRANT UPDATE ON "${schema}".spine_sessions TO $role`,
    ]);
    const store = createPostgresStore({ connectionString: url, schema });
    try {
      const writer = await store.open('leased');
      const toolStarted: SessionEvent = {
        seq: 2,
        type: 'tool/started',
        at: new Date().toISOString(),
        body: { callId: 'c1', name: 'bash' },
      };
      expect(() => writer.append([toolStarted])).toThrow(StorePermissionError);
      expect(() => writer.append([toolStarted])).toThrow(/spine_events/);
      await writer.close().catch(() => {});
      const again = await store.open('leased');
      again.append([{ ...toolStarted, type: 'note/x' }]);
      const error = await again.flush().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(StorePermissionError);
      await again.close().catch(() => {});
    } finally {
      await store.close();
    }
  });

  it('without the migration privilege: migrate fails with StorePermissionError naming the database', async () => {
    const url = await role('nomigrate', []);
    const error = await migratePostgresStore({
      connectionString: url,
      schema: freshSchema('permmig'),
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StorePermissionError);
    expect((error as Error).message).toMatch(/permission denied for database/);
  });
});

describe('a configuration PostgreSQL cannot hold', () => {
  it('refuses NUL in the owner label at once with StoreConfigError', () => {
    expect(() =>
      createPostgresStore({ connectionString: server.url, schema, owner: 'a\u0000b' }),
    ).toThrow(StoreConfigError);
  });

  it('reports a database that does not exist as StoreConfigError', async () => {
    const url = new URL(server.url);
    url.pathname = '/no_such_database';
    const store = createPostgresStore({ connectionString: url.toString(), schema });
    try {
      await expect(store.list()).rejects.toBeInstanceOf(StoreConfigError);
    } finally {
      await store.close();
    }
  });
});
