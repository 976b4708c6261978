// Conformance cases about the store itself: identity, existence, locks, writers, listing, and
// keeping what was written exactly.

import { setTimeout as delay } from 'node:timers/promises';
import type { SessionEvent } from '@spine/protocol';
import { Session } from '../session.js';
import { headerEvent } from '../session-format.js';
import { ensure, expectCode, expectSame, expectWorks, show } from './assert.js';
import type { StoreConformanceCase } from './types.js';

/** An already-valid event for `OpenedSession.append`, as `Session` would hand it to the store. */
export function rawEvent(
  seq: number,
  type: string,
  body: unknown,
  extra: Partial<SessionEvent> = {},
): SessionEvent {
  return { seq, type, at: new Date().toISOString(), body, ...extra };
}

/** Cases that exercise `SessionStore` and `OpenedSession` directly or through `Session`. */
export const storeCases: readonly StoreConformanceCase[] = [
  {
    name: 'declares specificationVersion 1 and a non-empty kind',
    async run(fresh) {
      const store = await fresh();
      expectSame(store.specificationVersion, 1, 'store.specificationVersion');
      ensure(
        typeof store.kind === 'string' && store.kind.length > 0,
        `store.kind: expected a non-empty string naming the backend, got ${show(store.kind)}`,
      );
    },
  },
  {
    name: 'reports a missing session as SESSION_NOT_FOUND and exists() as false until it is created',
    async run(fresh) {
      const store = await fresh();
      await expectCode(() => store.open('nope'), 'SESSION_NOT_FOUND', "store.open('nope')");
      await expectCode(
        () => store.open('nope', { readOnly: true }),
        'SESSION_NOT_FOUND',
        "store.open('nope', { readOnly: true })",
      );
      expectSame(await store.exists('nope'), false, "store.exists('nope') on an empty store");
      await (await Session.create({ store, id: 'yes' })).close();
      expectSame(await store.exists('yes'), true, "store.exists('yes') after creating it");
      expectSame(await store.exists('nope'), false, "store.exists('nope') after creating 'yes'");
    },
  },
  {
    name: 'refuses to create an id that exists with SESSION_EXISTS and keeps the first session',
    async run(fresh) {
      const store = await fresh();
      const first = await Session.create({ store, id: 'dup', title: 'first' });
      first.append('turn/start', {}, { turn: 1 });
      await first.close();
      await expectCode(
        () => Session.create({ store, id: 'dup', title: 'second' }),
        'SESSION_EXISTS',
        "creating 'dup' a second time",
      );
      const reopened = await Session.open({ store, id: 'dup', readOnly: true });
      expectSame(reopened.header.title, 'first', 'the title after a refused second create');
      expectSame(reopened.lastSeq, 2, 'lastSeq after a refused second create');
      await reopened.close();
    },
  },
  {
    name: 'gives a second writer SESSION_LOCKED, lets readers in, and frees the lock on close',
    async run(fresh) {
      const store = await fresh();
      const writer = await Session.create({ store, id: 'locked' });
      await expectCode(
        () => Session.open({ store, id: 'locked' }),
        'SESSION_LOCKED',
        'opening for writing while the creating Session holds the session',
      );
      const reader = await expectWorks(
        () => Session.open({ store, id: 'locked', readOnly: true }),
        'opening read-only while a writer holds the session',
      );
      await expectCode(
        () => reader.append('turn/start', {}),
        'SESSION_CLOSED',
        'appending through a read-only Session',
      );
      await reader.close();
      await expectCode(
        () => store.open('locked'),
        'SESSION_LOCKED',
        'store.open() for writing after a reader closed, with the writer still open',
      );
      await writer.close();
      const again = await expectWorks(
        () => Session.open({ store, id: 'locked' }),
        'opening for writing after the writer closed',
      );
      await expectCode(
        () => store.open('locked'),
        'SESSION_LOCKED',
        'store.open() while the reopened writer holds the lock',
      );
      await again.close();
      const last = await expectWorks(() => store.open('locked'), 'store.open() after every close');
      await last.close();
    },
  },
  {
    name: 'refuses appends through read-only and closed writers with SESSION_CLOSED; close() is idempotent',
    async run(fresh) {
      const store = await fresh();
      const writer = await store.create(headerEvent('raw', {}));
      writer.append([rawEvent(2, 'turn/start', {}, { turn: 1 })]);
      await writer.flush();
      const reader = await store.open('raw', { readOnly: true });
      await expectCode(
        () => reader.append([rawEvent(3, 'turn/end', { reason: 'completed' }, { turn: 1 })]),
        'SESSION_CLOSED',
        'append() on a writer opened with { readOnly: true }',
      );
      await reader.close();
      await expectWorks(() => reader.close(), 'a second close() of a read-only writer');
      await writer.close();
      await expectWorks(() => writer.close(), 'a second close() of a writer');
      await expectCode(
        () => writer.append([rawEvent(3, 'turn/end', { reason: 'completed' }, { turn: 1 })]),
        'SESSION_CLOSED',
        'append() on a closed writer',
      );
      const check = await store.open('raw', { readOnly: true });
      expectSame(
        check.events.map((event) => event.seq),
        [1, 2],
        'the seqs stored after two refused appends',
      );
      await check.close();
    },
  },
  {
    name: 'lists sessions from their headers, most recently updated first, with a limit',
    async run(fresh) {
      const store = await fresh();
      expectSame(await store.list(), [], 'store.list() of an empty store');
      for (const id of ['older', 'newer']) {
        const session = await Session.create({ store, id, title: id, meta: { n: id.length } });
        session.append('turn/start', {}, { turn: 1 });
        await session.close();
        await delay(15);
      }
      const all = await store.list();
      expectSame(
        all.map((summary) => summary.id),
        ['newer', 'older'],
        'ids from list(), newest first',
      );
      expectSame(all[0]?.header.title, 'newer', 'header.title of the first summary');
      expectSame(all[1]?.header.meta, { n: 5 }, 'header.meta of the second summary');
      for (const summary of all) {
        const { sizeBytes, updatedAt } = summary;
        ensure(
          sizeBytes === undefined || (Number.isInteger(sizeBytes) && sizeBytes > 0),
          `summary.sizeBytes: expected undefined or a positive integer, got ${show(sizeBytes)}`,
        );
        ensure(
          updatedAt === undefined || !Number.isNaN(Date.parse(updatedAt)),
          `summary.updatedAt: expected undefined or an ISO-8601 time, got ${show(updatedAt)}`,
        );
      }
      expectSame(
        (await store.list({ limit: 1 })).map((summary) => summary.id),
        ['newer'],
        'ids from list({ limit: 1 })',
      );
      const older = await Session.open({ store, id: 'older' });
      older.append('turn/start', {}, { turn: 2 });
      await older.close();
      expectSame(
        (await store.list()).map((summary) => summary.id),
        ['older', 'newer'],
        'ids from list() after appending to the older session',
      );
    },
  },
  {
    name: 'shows a reader what the writer flushed, before the writer closes',
    async run(fresh) {
      const store = await fresh();
      const writer = await Session.create({ store, id: 'live' });
      writer.append('turn/start', {}, { turn: 1 });
      writer.append('user/message', { content: 'hi', source: 'user' }, { turn: 1 });
      await writer.flush();
      const reader = await Session.open({ store, id: 'live', readOnly: true });
      expectSame(reader.events(), writer.events(), 'events a reader sees after the writer flushed');
      await reader.close();
      await writer.close();
    },
  },
];
