// Runnable companion of "Bring your own store" in docs/guides/adopting-session-log.md: check a
// SessionStore with the conformance suite Spine's own stores run. Offline; run with
//   npx tsx docs/guides/examples/bring-your-own-store.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionStore } from '@spine/protocol';
import { createJsonlStore } from '@spine/session-log';
import { checkSessionStore } from '@spine/session-log/testing';

// Your store goes here. This one delegates to the JSONL store but opens every session read-only:
// it never takes the single-writer lock and cannot append after a reopen, bugs the suite catches.
function createLeakyStore(dir: string): SessionStore {
  const inner = createJsonlStore({ dir, fsync: 'never' });
  return {
    specificationVersion: 1,
    kind: 'leaky',
    create: (header) => inner.create(header),
    exists: (id) => inner.exists(id),
    list: (options) => inner.list(options),
    readRange: (id, range) => inner.readRange(id, range),
    readSnapshot: (id) => inner.readSnapshot(id),
    open: (id) => inner.open(id, { readOnly: true }),
  };
}

// Each case gets a fresh, empty store and disposes of it afterwards.
const fresh = (make: (dir: string) => SessionStore) => () => {
  const dir = mkdtempSync(join(tmpdir(), 'spine-store-'));
  return { store: make(dir), dispose: () => rmSync(dir, { recursive: true, force: true }) };
};

const good = await checkSessionStore(fresh((dir) => createJsonlStore({ dir, fsync: 'never' })));
console.log(`jsonl: ${good.ok ? 'conforms' : 'fails'}, ${good.passed} cases passed`);
if (!good.ok) throw new Error(`the JSONL store failed: ${JSON.stringify(good.failed)}`);

const leaky = await checkSessionStore(fresh(createLeakyStore));
console.log(`leaky: ${leaky.ok ? 'conforms' : 'fails'}, ${leaky.failed.length} case(s) failed`);
for (const failure of leaky.failed) console.log(`  ✗ ${failure.name}\n    ${failure.message}`);
if (leaky.ok) throw new Error('the suite should have caught the leaky store');
