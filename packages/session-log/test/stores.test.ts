import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionStore } from '@spine/protocol';
import { createJsonlStore, createMemoryStore } from '@spine/session-log';
import { createSqliteStore } from '@spine/session-log/sqlite';
import { type StoreUnderTest, storeConformanceCases } from '@spine/session-log/testing';
import { afterEach, describe, expect, it } from 'vitest';

// Spine's own stores run the published conformance suite, one vitest test per case, exactly as
// an outside store would.

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'spine-store-'));
}

function conformance(kind: string, factory: () => StoreUnderTest): void {
  describe(`SessionStore conformance: ${kind}`, () => {
    const disposers: Array<() => Promise<void> | void> = [];
    const fresh = async (): Promise<SessionStore> => {
      const made = factory();
      if (made.dispose) disposers.push(made.dispose);
      return made.store;
    };
    afterEach(async () => {
      for (const dispose of disposers.splice(0)) await dispose();
    });

    it(`names its backend "${kind}"`, async () => {
      expect((await fresh()).kind).toBe(kind);
    });
    for (const conformanceCase of storeConformanceCases) {
      it(conformanceCase.name, () => conformanceCase.run(fresh));
    }
  });
}

conformance('memory', () => ({ store: createMemoryStore() }));

conformance('jsonl', () => {
  const dir = tempDir();
  return {
    store: createJsonlStore({ dir }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
});

conformance('sqlite', () => {
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
