import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { hooksOf, readSnapshotHead } from './internal/store-hooks.js';
import { Session } from './session.js';
import { decodeSnapshot, decodeSnapshotState, SNAPSHOT_HEAD_LINES } from './session-snapshot.js';
import { createJsonlStore } from './store-jsonl.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A closed JSONL session of 30 user messages with a snapshot at its end carrying `marker`. */
async function snapshotted(id = 's') {
  const dir = mkdtempSync(join(tmpdir(), 'spine-snapshot-format-'));
  dirs.push(dir);
  const store = createJsonlStore({ dir, fsync: 'never' });
  const session = await Session.create({ store, id, snapshots: false });
  session.attachToSnapshots('marker', () => ({ at: session.lastSeq }));
  for (let i = 0; i < 30; i++) {
    session.append(
      'user/message',
      { content: `m${i}`, source: 'user' },
      { turn: i, surfaceOp: { op: 'append' } },
    );
  }
  await session.snapshot();
  await session.close();
  const path = join(dir, `${id}.jsonl.snapshot`);
  const text = readFileSync(path, 'utf8');
  // The store's meta line, then the snapshot's three lines: magic + digest, state, events.
  const [meta, magic, state, events] = text.split('\n') as [string, string, string, string];
  return { store, id, path, text, meta, magic, state, events };
}

const contents = (session: Session) => session.deriveMessages().messages.map((m) => m.content);
const expected = Array.from({ length: 30 }, (_, i) => `m${i}`);

/** What a lazy and a full open make of the snapshot file as it is now. */
async function openBoth(s: Awaited<ReturnType<typeof snapshotted>>) {
  const lazy = await Session.open({ store: s.store, id: s.id, history: 'lazy', readOnly: true });
  const lazyMessages = contents(lazy);
  const lazyAttachment = lazy.snapshotAttachment('marker');
  await lazy.close();
  const full = await Session.open({ store: s.store, id: s.id, readOnly: true });
  const fullAttachment = full.snapshotAttachment('marker');
  await full.close();
  return { lazyMessages, lazyAttachment, fullAttachment };
}

describe('snapshot format 2: a state part and an events part, each with its digest', () => {
  it('keeps the events out of the state line, and the store reads the state part alone', async () => {
    const s = await snapshotted();
    expect(s.magic).toMatch(/^spine-snapshot 2 [0-9a-f]{64}$/);
    expect(s.state).not.toContain('"m7"');
    expect(s.events).toContain('"m7"');
    const head = hooksOf(s.store)[readSnapshotHead]?.(s.id, SNAPSHOT_HEAD_LINES);
    expect(head?.data).toBe(`${s.magic}\n${s.state}\n`);
    const decoded = head && decodeSnapshotState(head, s.id);
    expect(decoded && 'state' in decoded && decoded.state.attachments).toEqual({
      marker: { at: 31 },
    });
    const { lazyMessages, lazyAttachment, fullAttachment } = await openBoth(s);
    expect(lazyMessages).toEqual(expected);
    expect(lazyAttachment).toEqual({ seq: 31, value: { at: 31 } });
    expect(fullAttachment).toEqual({ seq: 31, value: { at: 31 } });
  });

  it('an edited state part is rejected by both opens, and a lazy open rebuilds the snapshot', async () => {
    const s = await snapshotted();
    writeFileSync(s.path, s.text.replace('{"marker":{"at":31}}', '{"marker":{"at":32}}'));
    const { lazyMessages, lazyAttachment, fullAttachment } = await openBoth(s);
    expect(lazyMessages).toEqual(expected);
    expect(lazyAttachment).toBeUndefined();
    expect(fullAttachment).toBeUndefined();
    const rebuilt = await Session.open({ store: s.store, id: s.id, history: 'lazy' });
    await rebuilt.close();
    const after = readFileSync(s.path, 'utf8');
    expect(after).not.toContain('"at":32');
    const stored = (await s.store.readSnapshot(s.id))!;
    expect('content' in decodeSnapshot(stored, s.id)).toBe(true);
  });

  it('an edited events part is rejected by a lazy open; a full open (which never reads it) keeps the state', async () => {
    const s = await snapshotted();
    writeFileSync(s.path, s.text.replace('"m7"', '"mX"'));
    const { lazyMessages, lazyAttachment, fullAttachment } = await openBoth(s);
    expect(lazyMessages).toEqual(expected);
    expect(lazyAttachment).toBeUndefined();
    // The full open reads its events from the log; the state part is intact and matches it.
    expect(fullAttachment).toEqual({ seq: 31, value: { at: 31 } });
    const stored = (await s.store.readSnapshot(s.id))!;
    expect(decodeSnapshot(stored, s.id)).toEqual({
      problem: 'events digest mismatch (edited or torn)',
    });
  });

  it('a snapshot cut between its parts, or inside one, is not trusted', async () => {
    const s = await snapshotted();
    const between = s.text.length - s.events.length;
    writeFileSync(s.path, s.text.slice(0, between));
    let opened = await openBoth(s);
    expect(opened.lazyMessages).toEqual(expected);
    expect(opened.lazyAttachment).toBeUndefined();
    // The state part is whole: a full open may use it.
    expect(opened.fullAttachment).toEqual({ seq: 31, value: { at: 31 } });
    writeFileSync(s.path, s.text.slice(0, between - 1));
    opened = await openBoth(s);
    expect(opened.lazyMessages).toEqual(expected);
    expect(opened.lazyAttachment).toBeUndefined();
    expect(opened.fullAttachment).toBeUndefined();
  });

  it('a version 1 snapshot (one digest over one JSON) is ignored and rebuilt as version 2', async () => {
    const s = await snapshotted();
    const { eventsDigest: _d, eventsLength: _l, ...state } = JSON.parse(s.state);
    const v1 = JSON.stringify({ ...state, version: 1, events: JSON.parse(s.events) });
    const digest = createHash('sha256').update(v1).digest('hex');
    writeFileSync(s.path, `${s.meta}\n${digest}\n${v1}`);
    const opened = await openBoth(s);
    expect(opened.lazyMessages).toEqual(expected);
    expect(opened.lazyAttachment).toBeUndefined();
    expect(opened.fullAttachment).toBeUndefined();
    const rebuilt = await Session.open({ store: s.store, id: s.id, history: 'lazy' });
    await rebuilt.close();
    expect(readFileSync(s.path, 'utf8').split('\n')[1]).toMatch(/^spine-snapshot 2 /);
  });

  it('any one character changed, or any cut, makes the snapshot unusable (property)', async () => {
    const s = await snapshotted();
    const stored = (await s.store.readSnapshot(s.id))!;
    expect('content' in decodeSnapshot(stored, s.id)).toBe(true);
    const data = stored.data;
    fc.assert(
      fc.property(
        fc.nat({ max: data.length - 1 }),
        fc.constantFrom('0', 'a', ' ', '"', '\n', 'é', '}'),
        fc.boolean(),
        (at, char, cut) => {
          const edited = cut ? data.slice(0, at) : data.slice(0, at) + char + data.slice(at + 1);
          fc.pre(edited !== data);
          const decoded = decodeSnapshot({ seq: stored.seq, data: edited }, s.id);
          expect('problem' in decoded).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
