import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  migratePostgresStore,
  POSTGRES_SCHEMA_VERSION,
  SchemaNotMigratedError,
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
const schemas: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  for (const schema of schemas) await dropSchema(server.url, schema).catch(() => {});
  await server?.stop();
});

describe('explicit, versioned migrations', () => {
  it('refuses an unmigrated schema at open with an error naming spine store migrate, and migrates nothing', async () => {
    const schema = freshSchema('unmigrated');
    schemas.push(schema);
    const store = createPostgresStore({ connectionString: server.url, schema });
    const error = await store.create(sessionHeader('a')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaNotMigratedError);
    expect((error as SchemaNotMigratedError).code).toBe('STORE_UNAVAILABLE');
    expect((error as Error).message).toContain('spine store migrate');
    expect((error as SchemaNotMigratedError).found).toBe(0);
    await expect(store.list()).rejects.toBeInstanceOf(SchemaNotMigratedError);
    // Still unmigrated: opening never changed the schema.
    const result = await migratePostgresStore({ connectionString: server.url, schema });
    expect(result).toMatchObject({ schema, from: 0, to: POSTGRES_SCHEMA_VERSION });
    expect(result.applied.map((step) => step.version)).toEqual([1, 2, 3, 4]);
    // The same store object works once the schema is migrated.
    await (await store.create(sessionHeader('a'))).close();
    expect((await store.list()).map((summary) => summary.id)).toEqual(['a']);
    await store.close();
  });

  it('applies each migration once, even when two migrators run at the same time', async () => {
    const schema = freshSchema('twice');
    schemas.push(schema);
    const results = await Promise.all([
      migratePostgresStore({ connectionString: server.url, schema }),
      migratePostgresStore({ connectionString: server.url, schema }),
    ]);
    expect(results.map((result) => result.applied.length).sort()).toEqual([
      0,
      POSTGRES_SCHEMA_VERSION,
    ]);
    const again = await migratePostgresStore({ connectionString: server.url, schema });
    expect(again).toEqual({
      schema,
      from: POSTGRES_SCHEMA_VERSION,
      to: POSTGRES_SCHEMA_VERSION,
      applied: [],
    });
  });

  it('reports an unreachable server without its password', async () => {
    const store = createPostgresStore({
      connectionString: 'postgres://spine:hunter2-secret@127.0.0.1:1/nowhere',
    });
    const error = await store.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).not.toContain('hunter2-secret');
    expect((error as Error).message).toMatch(/Cannot reach PostgreSQL/);
    await store.close();
  });

  it('refuses a schema name that would need quoting', async () => {
    expect(() => createPostgresStore({ schema: 'bad"; DROP' })).toThrow(StoreUnavailableError);
    await expect(
      migratePostgresStore({ connectionString: server.url, schema: '1x' }),
    ).rejects.toThrow(/Schema name "1x" is not allowed/);
  });
});
