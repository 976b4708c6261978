import { storeConformanceCases } from '@spine/session-log/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createPostgresStore, migratePostgresStore, type PostgresStore } from '../src/index.js';
import { dropSchema, freshSchema, startTestServer, type TestServer } from './server.js';

let server: TestServer;
const made: Array<{ store: PostgresStore; schema: string }> = [];

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  for (const { store, schema } of made) {
    await store.close();
    await dropSchema(server.url, schema);
  }
  await server?.stop();
});

async function freshStore(): Promise<PostgresStore> {
  const schema = freshSchema('conf');
  await migratePostgresStore({ connectionString: server.url, schema });
  const store = createPostgresStore({ connectionString: server.url, schema, maxConnections: 4 });
  made.push({ store, schema });
  return store;
}

describe('the PostgreSQL store passes the SessionStore conformance kit', () => {
  for (const conformanceCase of storeConformanceCases) {
    it(conformanceCase.name, () => conformanceCase.run(freshStore), 60_000);
  }
});
