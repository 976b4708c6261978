import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue, SessionEvent, SessionStore } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { createMemoryStore } from './store-memory.js';
import type { SessionProjection } from './types.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spine-snapshot-'));
  dirs.push(dir);
  return dir;
}

/** Counts events per type and remembers the last user text: a fold that depends on every event. */
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
  | { kind: 'note' }
  | { kind: 'replace'; from: number; length: number }
  | { kind: 'snapshot' }
  | { kind: 'checkpoint' }
  | { kind: 'reopen' }
  | { kind: 'fork'; at: number };

const text = fc.string({ unit: 'grapheme', maxLength: 12 }).map((value) => `${value}\n"q"`);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: text.map((t) => ({ kind: 'user' as const, text: t })) },
  {
    weight: 3,
    arbitrary: fc.record({ started: fc.boolean(), answered: fc.boolean() }).map((r) => ({
      kind: 'call' as const,
      ...r,
    })),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'note' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .record({ from: fc.nat(40), length: fc.integer({ min: 1, max: 6 }) })
      .map((r) => ({ kind: 'replace' as const, ...r })),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
  { weight: 1, arbitrary: fc.nat(60).map((at) => ({ kind: 'fork' as const, at })) },
);

let calls = 0;
/** Applies one op to a writable session; illegal replaces are refused by the session and skipped. */
async function apply(session: Session, op: Op): Promise<void> {
  switch (op.kind) {
    case 'user':
      session.append(
        'user/message',
        { content: op.text, source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
      return;
    case 'call': {
      const id = `call-${++calls}`;
      session.append(
        'assistant/message',
        {
          content: [{ type: 'tool-call', id, name: 'read', arguments: '{}' }],
          finishReason: 'tool-calls',
        },
        { surfaceOp: { op: 'append' } },
      );
      if (op.started)
        session.append('tool/started', { toolCallId: id, toolName: 'read', arguments: '{}' });
      if (op.answered) {
        session.append(
          'tool/result',
          { toolCallId: id, toolName: 'read', content: 'ok', isError: false },
          { surfaceOp: { op: 'append' } },
        );
      }
      return;
    }
    case 'note':
      session.append('turn/start', {});
      return;
    case 'replace': {
      const surface = session.surface();
      const start = surface[op.from % Math.max(1, surface.length)];
      const end =
        surface[
          Math.min(surface.length - 1, (op.from % Math.max(1, surface.length)) + op.length - 1)
        ];
      if (start === undefined || end === undefined) return;
      try {
        session.append(
          'user/message',
          { content: `summary of ${start}..${end}`, source: 'user' },
          { surfaceOp: { op: 'replace', start, end } },
        );
      } catch (error) {
        if ((error as { code?: string }).code !== 'ILLEGAL_SURFACE_OP') throw error;
      }
      return;
    }
    case 'snapshot':
      await session.snapshot();
      return;
    case 'checkpoint':
      session.checkpoint();
      return;
    default:
      return;
  }
}

/** What a lazily opened session must agree on with a full replay. */
async function expectSameState(store: SessionStore, id: string): Promise<void> {
  const full = await Session.open({ store, id, readOnly: true, projections: [counts] });
  const lazy = await Session.open({
    store,
    id,
    readOnly: true,
    history: 'lazy',
    projections: [counts],
  });
  try {
    expect(lazy.lastSeq).toBe(full.lastSeq);
    expect(lazy.header).toEqual(full.header);
    expect(lazy.surface()).toEqual(full.surface());
    expect(lazy.replaceGeneration).toBe(full.replaceGeneration);
    expect(lazy.deriveMessages().messages).toEqual(full.deriveMessages().messages);
    expect(lazy.deriveMessages().seqs).toEqual(full.deriveMessages().seqs);
    expect(lazy.projection('counts')).toEqual(full.projection('counts'));
    for (const event of lazy.events()) expect(event).toEqual(full.get(event.seq));
    const streamed: SessionEvent[] = [];
    for await (const event of lazy.readEvents({ fromSeq: 1 })) streamed.push(event);
    expect(streamed).toEqual(full.events());
  } finally {
    await lazy.close();
    await full.close();
  }
}

describe('snapshots', () => {
  it('opening lazily from any snapshot gives the surface, messages and projections of a full replay (random logs with replaces, reopens and forks)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom('jsonl', 'memory'),
        async (ops, kind) => {
          const store =
            kind === 'jsonl'
              ? createJsonlStore({ dir: tempDir(), fsync: 'never' })
              : createMemoryStore();
          const options = { store, projections: [counts], snapshots: { afterEvents: 7 } };
          let session = await Session.create({ ...options, id: 'prop' });
          const ids = ['prop'];
          try {
            for (const op of ops) {
              if (op.kind === 'reopen') {
                await session.close();
                session = await Session.open({ ...options, id: session.id, history: 'lazy' });
              } else if (op.kind === 'fork') {
                const child = await session.fork(1 + (op.at % session.lastSeq), {
                  id: `fork${ids.length}`,
                });
                ids.push(child.id);
                await child.snapshot();
                await child.close();
              } else {
                await apply(session, op);
              }
            }
          } finally {
            await session.close();
          }
          for (const id of ids) await expectSameState(store, id);
        },
      ),
      { numRuns: 60 },
    );
  }, 240_000);

  it('writes automatic snapshots at checkpoints once afterEvents appends are due, and none with snapshots: false', async () => {
    const dir = tempDir();
    const store = createJsonlStore({ dir, fsync: 'never' });
    for (const snapshots of [false, { afterEvents: 5 }] as const) {
      const id = snapshots ? 'auto' : 'never';
      const session = await Session.create({ store, id, snapshots });
      for (let i = 0; i < 600; i++) {
        session.append(
          'user/message',
          { content: `m${i}`, source: 'user' },
          { surfaceOp: { op: 'append' } },
        );
        session.checkpoint();
      }
      await session.close();
      const stored = await store.readSnapshot(id);
      // More appends than the default threshold (512): `false` must still write none.
      if (snapshots) expect(stored?.seq).toBeGreaterThanOrEqual(5);
      else expect(stored).toBeUndefined();
    }
  });

  it('ignores and rebuilds a snapshot edited by hand, and one that does not match the log', async () => {
    const dir = tempDir();
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.create({ store, id: 'edit', snapshots: false });
    for (let i = 0; i < 20; i++) {
      session.append(
        'user/message',
        { content: `m${i}`, source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
    }
    await session.snapshot();
    await session.close();
    const path = join(dir, 'edit.jsonl.snapshot');
    const original = readFileSync(path, 'utf8');
    writeFileSync(path, original.replace('"m3"', '"mX"'));
    const reopened = await Session.open({ store, id: 'edit', history: 'lazy' });
    expect(reopened.deriveMessages().messages.map((m) => m.content)).toContain('m3');
    expect(reopened.deriveMessages().messages.map((m) => m.content)).not.toContain('mX');
    await reopened.close();
    // The rebuilt snapshot is valid again (and not the edited one).
    expect(readFileSync(path, 'utf8')).not.toContain('"mX"');
    // A digest-valid snapshot of another log (same id, other content) is not trusted either.
    const otherDir = tempDir();
    const other = createJsonlStore({ dir: otherDir, fsync: 'never' });
    const imposter = await Session.create({ store: other, id: 'edit', snapshots: false });
    for (let i = 0; i < 20; i++) {
      imposter.append(
        'user/message',
        { content: `z${i}`, source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
    }
    await imposter.snapshot();
    await imposter.close();
    writeFileSync(path, readFileSync(join(otherDir, 'edit.jsonl.snapshot')));
    const again = await Session.open({ store, id: 'edit', history: 'lazy', readOnly: true });
    expect(again.deriveMessages().messages.map((m) => m.content)).toEqual(
      Array.from({ length: 20 }, (_, i) => `m${i}`),
    );
    await again.close();
  });

  it('reads older events through the store in a lazy session and answers interrupted calls across a snapshot', async () => {
    const store = createJsonlStore({ dir: tempDir(), fsync: 'never' });
    const session = await Session.create({ store, id: 'lazy', snapshots: false });
    session.append(
      'user/message',
      { content: 'go', source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
    for (let i = 0; i < 50; i++) session.append('turn/start', {});
    session.append(
      'assistant/message',
      {
        content: [{ type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }],
        finishReason: 'tool-calls',
      },
      { surfaceOp: { op: 'append' } },
    );
    session.append('tool/started', { toolCallId: 'c1', toolName: 'read', arguments: '{}' });
    await session.snapshot();
    await session.flush();
    // Simulate a crash: the writer goes away without answering c1.
    await session.close();
    const lazy = await Session.open({ store, id: 'lazy', history: 'lazy' });
    expect(lazy.get(10)).toBeUndefined();
    const read: number[] = [];
    for await (const event of lazy.readEvents({ fromSeq: 9, toSeq: 12 })) read.push(event.seq);
    expect(read).toEqual([9, 10, 11, 12]);
    const last = lazy.events().at(-2);
    expect(last?.type).toBe('tool/result');
    expect((last?.body as { outcome?: string } | undefined)?.outcome).toBe('unknown');
    await lazy.close();
  });
});

describe('an automatic snapshot that cannot be built', () => {
  it('fails neither the checkpoint nor close, and the log stays whole', async () => {
    const store = createMemoryStore();
    const session = await Session.create({ store, id: 'capture', snapshots: { afterEvents: 2 } });
    session.attachToSnapshots('broken', () => {
      throw new Error('capture failed');
    });
    for (let i = 0; i < 4; i++) session.append('turn/start', {});
    expect(() => session.checkpoint()).not.toThrow();
    session.append('turn/start', {});
    await expect(session.close()).resolves.toBeUndefined();
    expect(await store.readSnapshot('capture')).toBeUndefined();
    const reopened = await Session.open({ store, id: 'capture', readOnly: true });
    expect(reopened.lastSeq).toBe(6);
    await reopened.close();
  });
});
