// Conformance cases for range reads, opening from a seq, and stored snapshots: what a session
// needs from a store so that opening and reading history do not load the whole log.

import type { SessionEvent, SessionStore } from '@spine/protocol';
import { headerEvent } from '../session-format.js';
import { ensure, expectCode, expectSame, show } from './assert.js';
import { rawEvent } from './cases-store.js';
import type { StoreConformanceCase } from './types.js';

const TYPES = ['turn/start', 'note/a', 'note/b'] as const;

/** Creates session `id` with events 2..count (bodies naming their seq; three rotating types), flushed. */
async function seeded(store: SessionStore, id: string, count: number): Promise<void> {
  const writer = await store.create(headerEvent(id, {}));
  const batch: SessionEvent[] = [];
  for (let seq = 2; seq <= count; seq++) {
    batch.push(rawEvent(seq, TYPES[seq % 3] as string, { seq, text: `line\n"${seq}" é 😀` }));
    if (batch.length === 250) writer.append(batch.splice(0));
  }
  if (batch.length > 0) writer.append(batch);
  await writer.flush();
  await writer.close();
}

async function collect(events: AsyncIterable<SessionEvent>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const seqsOf = (events: readonly SessionEvent[]): number[] => events.map((event) => event.seq);

function expectRange(events: readonly SessionEvent[], expected: number[], what: string): void {
  expectSame(seqsOf(events), expected, `${what}: the seqs read`);
  for (const event of events) {
    if (event.seq === 1) continue;
    expectSame(event.body, { seq: event.seq, text: `line\n"${event.seq}" é 😀` }, `${what}: body`);
  }
}

const range = (from: number, to: number, step = 1): number[] => {
  const out: number[] = [];
  for (let seq = from; seq <= to; seq += step) out.push(seq);
  return out;
};

/** Range-read, open-from-seq and snapshot cases. */
export const rangeCases: readonly StoreConformanceCase[] = [
  {
    name: 'readRange streams a seq range in order, filtered by types and cut by limit',
    async run(fresh) {
      const store = await fresh();
      await seeded(store, 'ranged', 300);
      expectRange(await collect(store.readRange('ranged', { fromSeq: 1 })), range(1, 300), 'all');
      expectRange(
        await collect(store.readRange('ranged', { fromSeq: 120, toSeq: 130 })),
        range(120, 130),
        'readRange({ fromSeq: 120, toSeq: 130 })',
      );
      expectRange(
        await collect(store.readRange('ranged', { fromSeq: 10, types: ['note/a'], limit: 4 })),
        [10, 13, 16, 19],
        "readRange({ fromSeq: 10, types: ['note/a'], limit: 4 })",
      );
      expectRange(
        await collect(store.readRange('ranged', { fromSeq: 295, limit: 100 })),
        range(295, 300),
        'readRange({ fromSeq: 295, limit: 100 })',
      );
      expectRange(await collect(store.readRange('ranged', { fromSeq: 301 })), [], 'past the end');
      expectRange(
        await collect(store.readRange('ranged', { fromSeq: 50, toSeq: 40 })),
        [],
        'toSeq before fromSeq',
      );
      expectRange(
        await collect(store.readRange('ranged', { fromSeq: 5, limit: 0 })),
        [],
        'limit 0',
      );
    },
  },
  {
    name: 'readRange refuses an unknown session (SESSION_NOT_FOUND) and a malformed range (INVALID_RANGE)',
    async run(fresh) {
      const store = await fresh();
      await seeded(store, 'known', 5);
      await expectCode(
        () => collect(store.readRange('nope', { fromSeq: 1 })),
        'SESSION_NOT_FOUND',
        "reading a range of 'nope'",
      );
      for (const bad of [{ fromSeq: 0 }, { fromSeq: 1.5 }, { fromSeq: 1, limit: -1 }]) {
        await expectCode(
          () => collect(store.readRange('known', bad)),
          'INVALID_RANGE',
          `readRange('known', ${show(bad)})`,
        );
      }
    },
  },
  {
    name: 'readRange sees flushed events while a writer holds the session',
    async run(fresh) {
      const store = await fresh();
      await seeded(store, 'live', 10);
      const writer = await store.open('live');
      writer.append([rawEvent(11, 'note/a', { seq: 11, text: 'line\n"11" é 😀' })]);
      await writer.flush();
      expectRange(
        await collect(store.readRange('live', { fromSeq: 9 })),
        [9, 10, 11],
        'a range read after the writer flushed seq 11',
      );
      await writer.close();
    },
  },
  {
    name: 'open({ fromSeq }) hands back only the events from that seq and the last seq',
    async run(fresh) {
      const store = await fresh();
      await seeded(store, 'tail', 200);
      const tail = await store.open('tail', { fromSeq: 190, readOnly: true });
      expectRange(tail.events, range(190, 200), 'open({ fromSeq: 190 }).events');
      expectSame(tail.lastSeq, 200, 'open({ fromSeq: 190 }).lastSeq');
      await tail.close();
      const past = await store.open('tail', { fromSeq: 201 });
      expectSame(past.events.length, 0, 'open({ fromSeq: 201 }).events.length');
      expectSame(past.lastSeq, 200, 'open({ fromSeq: 201 }).lastSeq');
      past.append([rawEvent(201, 'note/a', { seq: 201, text: 'line\n"201" é 😀' })]);
      await past.close();
      const all = await store.open('tail', { readOnly: true });
      expectSame(all.lastSeq, 201, 'lastSeq after appending to a writer opened from seq 201');
      expectRange(all.events.slice(-3), [199, 200, 201], 'the last events after that append');
      await all.close();
    },
  },
  {
    name: 'keeps the newest snapshot exactly, across reopens, and refuses it from read-only writers',
    async run(fresh) {
      const store = await fresh();
      await seeded(store, 'snap', 40);
      expectSame(
        await store.readSnapshot('snap'),
        undefined,
        'readSnapshot before any was written',
      );
      await expectCode(
        () => store.readSnapshot('nope'),
        'SESSION_NOT_FOUND',
        "readSnapshot('nope')",
      );
      const writer = await store.open('snap');
      const data = `{"v":1}\n\u2028 "quoted" \\ é 😀 ${'x'.repeat(70_000)}`;
      await writer.writeSnapshot({ seq: 40, data: 'older' });
      await writer.writeSnapshot({ seq: 40, data });
      const stored = await store.readSnapshot('snap');
      ensure(
        stored !== undefined,
        'readSnapshot after writeSnapshot: expected a snapshot, got none',
      );
      expectSame(stored.seq, 40, 'the stored snapshot seq');
      ensure(
        stored.data === data,
        'the stored snapshot data: expected the bytes written, got others',
      );
      writer.append([rawEvent(41, 'note/a', { seq: 41, text: 'line\n"41" é 😀' })]);
      await writer.close();
      const reader = await store.open('snap', { readOnly: true });
      await expectCode(
        () => reader.writeSnapshot({ seq: 41, data: 'x' }),
        'SESSION_CLOSED',
        'writeSnapshot on a read-only writer',
      );
      await reader.close();
      expectSame((await store.readSnapshot('snap'))?.seq, 40, 'the snapshot seq after a reopen');
      const tail = await store.open('snap', { fromSeq: 41, readOnly: true });
      expectRange(tail.events, [41], 'open({ fromSeq: 41 }) after a snapshot at 40');
      await tail.close();
    },
  },
  {
    name: 'reads ranges before, at and after a snapshot seq over 2,000 events',
    async run(fresh) {
      const store = await fresh();
      await seeded(store, 'big', 1500);
      const writer = await store.open('big');
      await writer.writeSnapshot({ seq: 1500, data: 'at 1500' });
      const more: SessionEvent[] = [];
      for (let seq = 1501; seq <= 2000; seq++) {
        more.push(rawEvent(seq, TYPES[seq % 3] as string, { seq, text: `line\n"${seq}" é 😀` }));
      }
      writer.append(more);
      await writer.close();
      for (const [from, to] of [
        [1, 3],
        [1490, 1510],
        [1501, 1502],
        [1999, 2000],
      ] as const) {
        expectRange(
          await collect(store.readRange('big', { fromSeq: from, toSeq: to })),
          range(from, to),
          `readRange({ fromSeq: ${from}, toSeq: ${to} })`,
        );
      }
      const tail = await store.open('big', { fromSeq: 1400 });
      expectRange(tail.events, range(1400, 2000), 'open({ fromSeq: 1400 })');
      expectSame(tail.lastSeq, 2000, 'lastSeq');
      await tail.close();
    },
  },
];
