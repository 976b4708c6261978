import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from '../session.js';
import { createJsonlStore } from '../store-jsonl.js';
import { readJsonlBatches, readJsonlEvents, scanJsonlBatches } from './jsonl-read.js';
import { hooksOf, openStreaming, readRangeBatches } from './store-hooks.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = createJsonlStore({ dir, fsync: 'never' });

/** A closed session of `count` events with texts of varied length (one over a 4 MB chunk). */
async function session(id: string, count: number, snapshotAt?: number): Promise<string> {
  const s = await Session.create({ store, id, snapshots: false });
  for (let i = 0; s.lastSeq < count; i++) {
    const content = `${i} `.padEnd(i === 5 ? 5_000_000 : 10 + ((i * 7919) % 3000), 'é✓ab');
    s.append('user/message', { content, source: 'user' }, { surfaceOp: { op: 'append' } });
    if (s.lastSeq === snapshotAt) await s.snapshot();
  }
  await s.close();
  return join(dir, `${id}.jsonl`);
}

describe('batched reads of a JSONL log', () => {
  it('readRangeBatches yields exactly readRange, in order, for any range (with and without a snapshot anchor)', async () => {
    await session('plain', 400);
    await session('anchored', 400, 250);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('plain', 'anchored'),
        fc.integer({ min: 1, max: 420 }),
        fc.option(fc.integer({ min: 1, max: 420 }), { nil: undefined }),
        async (id, fromSeq, toSeq) => {
          const expected: SessionEvent[] = [];
          for await (const event of store.readRange(id, { fromSeq, toSeq })) expected.push(event);
          const batches = [...hooksOf(store)[readRangeBatches]!(id, { fromSeq, toSeq })];
          expect(batches.every((batch) => batch.length > 0)).toBe(true);
          expect(batches.flat()).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('scanJsonlBatches finds what readJsonlEvents finds: events, last seq, chain head, torn tail', async () => {
    const path = await session('scan', 9000);
    for (const tail of ['', '{"seq":9001,"type":"us', '{"seq":9001,"type":"turn/st\n']) {
      if (tail) appendFileSync(path, tail);
      const full = readJsonlEvents(path);
      const scan = { size: 0, position: 0, lastSeq: 0, chainHead: '' };
      const batches = [...scanJsonlBatches(path, scan)];
      expect(batches.length).toBeGreaterThan(1);
      expect(batches.flat()).toEqual(full.events);
      expect(scan).toEqual({
        size: full.size,
        position: full.validBytes,
        lastSeq: full.lastSeq,
        chainHead: full.chainHead,
      });
      expect(scan.chainHead).toMatch(/^[0-9a-f]{32}$/);
      if (tail) rmSync(path, { force: true });
      if (tail) await session('scan', 9000);
    }
    expect([...readJsonlBatches(path, { fromSeq: 8000, toSeq: 8001 })]).toHaveLength(1);
  }, 120_000);

  it('openStreaming holds the lock from the start and releases it on abort', async () => {
    await session('locked', 10);
    const opening = hooksOf(store)[openStreaming]!('locked', { readOnly: false });
    await expect(Session.open({ store, id: 'locked' })).rejects.toThrow(/lock/i);
    opening.abort();
    const reopened = await Session.open({ store, id: 'locked' });
    expect(reopened.lastSeq).toBe(10);
    await reopened.close();
  });
});
