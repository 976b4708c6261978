// The first lazy open of a log without a snapshot (loadStreamed in session-open.ts):
// it streams the log instead of holding it, and must end in exactly the state a full open
// reaches, repair included, with a snapshot written that a later lazy open trusts.
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue, SessionEvent, SessionStore } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { surfaceRuns } from './internal/surface-runs.js';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { createMemoryStore } from './store-memory.js';
import { createSqliteStore } from './store-sqlite.js';
import type { SessionProjection } from './types.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spine-first-open-'));
  dirs.push(dir);
  return dir;
}

/** A fold over every event (types counted, the last user text kept). */
const counts: SessionProjection<{ [type: string]: JsonValue }> = {
  name: 'counts',
  version: 1,
  initial: () => ({}),
  apply(state, event) {
    state[event.type] = ((state[event.type] as number | undefined) ?? 0) + 1;
    if (event.type === 'user/message') state.lastUser = (event.body as { content: string }).content;
    return state;
  },
};

type Op =
  | { kind: 'user'; text: string }
  | { kind: 'call'; started: boolean; answered: boolean }
  | { kind: 'filler'; count: number }
  | { kind: 'replace'; from: number; length: number }
  | { kind: 'compact'; keep: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .string({ unit: 'grapheme', maxLength: 12 })
      .map((text) => ({ kind: 'user' as const, text: `${text}\n"q"` })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ started: fc.boolean(), answered: fc.boolean() })
      .map((r) => ({ kind: 'call' as const, ...r })),
  },
  // Long stretches of non-surface events put surface events far apart (several read ranges).
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 3000, max: 9000 }))
      .map((count) => ({ kind: 'filler' as const, count })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ from: fc.nat(40), length: fc.integer({ min: 1, max: 6 }) })
      .map((r) => ({ kind: 'replace' as const, ...r })),
  },
  { weight: 1, arbitrary: fc.nat(5).map((keep) => ({ kind: 'compact' as const, keep })) },
);

let calls = 0;
/** Applies one op; replaces the surface refuses (tool pairing) are skipped. */
function apply(session: Session, op: Op): void {
  const append = { surfaceOp: { op: 'append' as const } };
  switch (op.kind) {
    case 'user':
      session.append('user/message', { content: op.text, source: 'user' }, append);
      return;
    case 'call': {
      const id = `call-${++calls}`;
      const content = [{ type: 'tool-call', id, name: 'read', arguments: '{}' }];
      session.append('assistant/message', { content, finishReason: 'tool-calls' }, append);
      if (op.started)
        session.append('tool/started', { toolCallId: id, toolName: 'read', arguments: '{}' });
      if (op.answered) {
        const result = { toolCallId: id, toolName: 'read', content: 'ok', isError: false };
        session.append('tool/result', result, append);
      }
      return;
    }
    case 'filler':
      for (let i = 0; i < op.count; i++) session.append('turn/start', {});
      return;
    default: {
      const surface = session.surface();
      // compact: everything but the first `keep` entries and the last two (pins early events).
      const first = op.kind === 'replace' ? op.from % Math.max(1, surface.length) : op.keep;
      const last = op.kind === 'replace' ? Math.min(surface.length - 1, first + op.length - 1) : -3;
      const start = surface.at(first);
      const end = surface.at(last);
      if (start === undefined || end === undefined) return;
      try {
        session.append(
          'user/message',
          { content: `summary of ${start}..${end}`, source: 'compaction' },
          { surfaceOp: { op: 'replace', start, end } },
        );
      } catch (error) {
        if ((error as { code?: string }).code !== 'ILLEGAL_SURFACE_OP') throw error;
      }
    }
  }
}

/** Events without their timestamps (recovery events are written at open time). */
const timeless = (events: readonly SessionEvent[]): unknown[] =>
  events.map(({ at: _at, ...rest }) => rest);

async function allEvents(session: Session): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of session.readEvents({ fromSeq: 1 })) events.push(event);
  return events;
}

/** The state a lazy session must share with a full one opened from the same log. */
async function expectSameState(lazy: Session, full: Session): Promise<void> {
  expect(lazy.lastSeq).toBe(full.lastSeq);
  expect(lazy.surface()).toEqual(full.surface());
  expect(lazy.replaceGeneration).toBe(full.replaceGeneration);
  expect(lazy.deriveMessages().messages).toEqual(full.deriveMessages().messages);
  expect(lazy.deriveMessages().seqs).toEqual(full.deriveMessages().seqs);
  expect(lazy.projection('counts')).toEqual(full.projection('counts'));
  expect(timeless(await allEvents(lazy))).toEqual(timeless(full.events()));
}

/** The store with the `fromSeq` of every `open` recorded (which path an open took). */
function recordingOpens(
  store: SessionStore,
  { hooks = true } = {},
): { store: SessionStore; opens: unknown[] } {
  const opens: unknown[] = [];
  const open: SessionStore['open'] = (id, options) => {
    opens.push(options?.fromSeq);
    return store.open(id, options);
  };
  // Without `hooks`, only the SessionStore interface: the package's symbol-keyed extras (the
  // JSONL store's opening read and batched ranges) are left out, as for a store from elsewhere.
  const base = hooks ? store : (Object.fromEntries(Object.entries(store)) as SessionStore);
  return { store: { ...base, open }, opens };
}

/** The stored snapshot's seq, waiting (event-loop turns, up to 10 s) for one when `expected`. */
async function snapshotSeq(store: SessionStore, expected: boolean): Promise<number | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const seq = (await store.readSnapshot('log'))?.seq;
    if (seq !== undefined || !expected || Date.now() > deadline) return seq;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Writes a log of `ops` (no snapshot) and returns two copies of it in separate stores. */
async function twoCopies(
  ops: readonly Op[],
): Promise<[SessionStore, SessionStore, string, string]> {
  const dir = tempDir();
  const store = createJsonlStore({ dir, fsync: 'never' });
  const session = await Session.create({ store, id: 'log', snapshots: false });
  for (const op of ops) apply(session, op);
  await session.close();
  const copy = tempDir();
  copyFileSync(join(dir, 'log.jsonl'), join(copy, 'log.jsonl'));
  expect(existsSync(join(dir, 'log.jsonl.snapshot'))).toBe(false);
  return [store, createJsonlStore({ dir: copy, fsync: 'never' }), dir, copy];
}

describe('first lazy open without a snapshot', () => {
  it('streams random logs (compactions pinning early events, far-apart surface events, interrupted calls) into the state, repair and snapshot of a full open', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const [lazyStore, fullStore, dir] = await twoCopies(ops);
        const options = { id: 'log', projections: [counts], snapshots: false as const };
        const recorded = recordingOpens(lazyStore);
        const lazy = await Session.open({ ...options, store: recorded.store, history: 'lazy' });
        // The streamed path: the JSONL store opens while reading once (never the full read,
        // which would call open without fromSeq).
        expect(recorded.opens).toEqual([]);
        const full = await Session.open({ ...options, store: fullStore });
        try {
          await expectSameState(lazy, full);
          // The rebuilt snapshot is written right after the open returns, at the last seq
          // (after any recovery events), without waiting for close; none for a bare header.
          const written = await snapshotSeq(lazyStore, full.lastSeq > 1);
          expect(written).toBe(full.lastSeq > 1 ? full.lastSeq : undefined);
          expect(existsSync(join(dir, 'log.jsonl.snapshot'))).toBe(full.lastSeq > 1);
        } finally {
          await lazy.close();
        }
        // A later lazy open trusts that snapshot and agrees too.
        const again = await Session.open({ ...options, store: lazyStore, history: 'lazy' });
        try {
          await expectSameState(again, full);
        } finally {
          await again.close();
          await full.close();
        }
      }),
      { numRuns: 40 },
    );
  }, 300_000);

  it('streams through the memory and SQLite stores too (read-only, no snapshot: the same state as a full open)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 30 }),
        fc.constantFrom('memory', 'sqlite'),
        async (ops, kind) => {
          const store =
            kind === 'memory'
              ? createMemoryStore()
              : createSqliteStore({ path: join(tempDir(), 'log.db') });
          const session = await Session.create({ store, id: 'log', snapshots: false });
          for (const op of ops) apply(session, op);
          await session.close();
          const options = { id: 'log', projections: [counts], readOnly: true };
          const recorded = recordingOpens(store);
          const lazy = await Session.open({ ...options, store: recorded.store, history: 'lazy' });
          const full = await Session.open({ ...options, store });
          try {
            expect(recorded.opens).toEqual([Number.MAX_SAFE_INTEGER]);
            await expectSameState(lazy, full);
          } finally {
            await lazy.close();
            await full.close();
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 300_000);

  it('writes the snapshot before close returns when the session is closed at once', async () => {
    const [store] = await twoCopies([
      { kind: 'user', text: 'a' },
      { kind: 'filler', count: 20 },
      { kind: 'call', started: true, answered: true },
    ]);
    const session = await Session.open({ store, id: 'log', history: 'lazy', snapshots: false });
    const lastSeq = session.lastSeq;
    await session.close();
    expect((await store.readSnapshot('log'))?.seq).toBe(lastSeq);
    // And a read-only first open writes none.
    const [readOnlyStore] = await twoCopies([{ kind: 'user', text: 'b' }]);
    const reader = await Session.open({
      store: readOnlyStore,
      id: 'log',
      history: 'lazy',
      readOnly: true,
    });
    await reader.close();
    expect(await readOnlyStore.readSnapshot('log')).toBeUndefined();
  });

  it('an unparseable last line is cut as a torn write, recorded, snapshot written (streamed; through the interface, the full read)', async () => {
    for (const hooks of [true, false]) {
      const [lazyStore, fullStore, dir, fullDir] = await twoCopies([
        { kind: 'user', text: 'a' },
        { kind: 'call', started: true, answered: false },
        { kind: 'filler', count: 3 },
      ]);
      // A complete last line that does not parse (a pass that only counts lines cannot tell).
      for (const at of [dir, fullDir])
        appendFileSync(join(at, 'log.jsonl'), '{"seq":9,"type":"turn/st\n');
      const recorded = recordingOpens(lazyStore, { hooks });
      const lazy = await Session.open({ store: recorded.store, id: 'log', history: 'lazy' });
      expect(recorded.opens).toEqual(hooks ? [] : [Number.MAX_SAFE_INTEGER, undefined]);
      const full = await Session.open({ store: fullStore, id: 'log' });
      try {
        expect(lazy.lastSeq).toBe(full.lastSeq);
        expect(timeless(await allEvents(lazy))).toEqual(timeless(full.events()));
        const recovered = full.events().at(-1)?.body as { truncatedBytes?: number };
        expect(recovered.truncatedBytes).toBe(25);
        expect(await snapshotSeq(lazyStore, true)).toBe(full.lastSeq);
      } finally {
        await lazy.close();
        await full.close();
      }
    }
  });

  it('read ranges cover every surface seq, at most four, in order and apart', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 2, max: 1_000_000 }), { maxLength: 300 }),
        (seqs) => {
          const lastSeq = Math.max(2, ...seqs) + 1;
          const runs = surfaceRuns([...seqs], lastSeq);
          expect(runs.length).toBeLessThanOrEqual(4);
          for (const seq of seqs) {
            expect(runs.some(([from, to]) => from <= seq && seq <= to)).toBe(true);
          }
          for (let i = 0; i < runs.length; i++) {
            const [from, to] = runs[i] as [number, number];
            expect(from).toBeLessThanOrEqual(to);
            if (i > 0) expect(from).toBeGreaterThan((runs[i - 1] as [number, number])[1]);
          }
        },
      ),
    );
  });
});
