import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlStore, createMemoryStore } from '../src/index.js';
import { createSqliteStore } from '../src/sqlite.js';
import { testSessionStore } from './store-conformance.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'spine-store-'));
}

testSessionStore('memory', () => ({ store: createMemoryStore() }));

testSessionStore('jsonl', () => {
  const dir = tempDir();
  return {
    store: createJsonlStore({ dir }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
});

testSessionStore('sqlite', () => {
  const dir = tempDir();
  const store = createSqliteStore({ path: join(dir, 'sessions.db') });
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
