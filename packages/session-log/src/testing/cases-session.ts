// Conformance cases about what a Session reads back from the store: events, surface, replace,
// derived messages, exact data, long logs, and the log left untouched by refused appends.

import type { SessionStore } from '@spine/protocol';
import { Session } from '../session.js';
import { ensure, expectCode, expectFields, expectSame } from './assert.js';
import type { StoreConformanceCase } from './types.js';

/** Strings that break naive encoders: escapes, separators, astral characters, a lone surrogate. */
const AWKWARD =
  'héllo ✓ "quoted" \\ back\\slash\ttab\nnewline \u0000 nul \u2028\u2029 😀 \ud800 </script>';

/** Closes `session`, reopens it (for writing unless `readOnly`) and checks the events came back. */
async function reopenSame(
  store: SessionStore,
  session: Session,
  options: { readOnly?: boolean; what: string },
): Promise<Session> {
  const expected = session.events();
  await session.close();
  const reopened = await Session.open({ store, id: session.id, readOnly: options.readOnly });
  expectSame(reopened.events(), expected, `${options.what}: the events after reopening`);
  return reopened;
}

/** Cases that check what a `Session` reads back from the store after writing through it. */
export const sessionCases: readonly StoreConformanceCase[] = [
  {
    name: 'stores appended events and reads them back in order, with the same surface and messages',
    async run(fresh) {
      const store = await fresh();
      const session = await Session.create({ store, id: 's1', title: 'round trip', cwd: '/w' });
      session.append('turn/start', {}, { turn: 1 });
      const user = session.append(
        'user/message',
        { content: 'héllo ✓', source: 'user' },
        { turn: 1, surfaceOp: { op: 'append' } },
      );
      session.append(
        'assistant/message',
        { content: [{ type: 'text', text: 'hi' }], finishReason: 'stop' },
        { turn: 1, step: 1, surfaceOp: { op: 'append' } },
      );
      session.append(
        'user/message',
        { content: 'summary', source: 'compact-checkpoint' },
        {
          turn: 1,
          step: 1,
          surfaceOp: { op: 'replace', start: user.seq, end: 4 },
          sourceEventSeqs: [3, 4],
        },
      );
      session.checkpoint();
      const before = session.deriveMessages().messages.slice();
      const reopened = await reopenSame(store, session, { what: 'round trip' });
      expectSame(reopened.surface(), [5], 'the surface after reopening (seq 5 replaced 3..4)');
      expectSame(reopened.replaceGeneration, 1, 'replaceGeneration after reopening');
      expectSame(reopened.deriveMessages().messages, before, 'derived messages after reopening');
      expectFields(
        reopened.header,
        { sessionId: 's1', title: 'round trip', cwd: '/w', formatVersion: 1 },
        'the header after reopening',
      );
      await reopened.close();
    },
  },
  {
    name: 'keeps bodies exactly as JSON: escapes, astral characters, numbers, nesting, a 256 KiB string',
    async run(fresh) {
      const store = await fresh();
      const meta = {
        text: AWKWARD,
        numbers: [0, -1, 1.5, 1e-7, 2 ** 53 - 1, -0.25, 1e21],
        flags: [true, false, null],
        nested: { a: { b: { c: [[], {}, [{ d: 'e' }]] } } },
      };
      const session = await Session.create({ store, id: 'exact', title: AWKWARD, meta });
      session.append('turn/start', {}, { turn: 1 });
      session.append(
        'user/message',
        { content: AWKWARD, source: 'user' },
        { turn: 1, surfaceOp: { op: 'append' } },
      );
      session.append(
        'user/message',
        { content: 'x'.repeat(256 * 1024), source: 'user' },
        { turn: 1, surfaceOp: { op: 'append' } },
      );
      session.checkpoint();
      const reopened = await reopenSame(store, session, { readOnly: true, what: 'exact data' });
      expectSame(reopened.header.meta, meta, 'header.meta after reopening');
      await reopened.close();
      const listed = (await store.list()).find((summary) => summary.id === 'exact');
      expectSame(listed?.header.title, AWKWARD, 'header.title as list() reports it');
      expectSame(listed?.header.meta, meta, 'header.meta as list() reports it');
    },
  },
  {
    name: 'keeps 2,000 events gapless and in order across checkpoints, flushes and reopens',
    async run(fresh) {
      const store = await fresh();
      const session = await Session.create({ store, id: 'long' });
      for (let turn = 1; turn <= 1000; turn++) {
        session.append('turn/start', {}, { turn });
        session.append('turn/end', { reason: 'completed', steps: 1 }, { turn });
        if (turn % 100 === 0) session.checkpoint();
        if (turn === 500) await session.flush();
      }
      const reopened = await reopenSame(store, session, { what: '2,000 events' });
      expectSame(reopened.lastSeq, 2001, 'lastSeq after reopening');
      reopened.append('turn/start', {}, { turn: 1001 });
      const third = await reopenSame(store, reopened, { readOnly: true, what: 'one more event' });
      const seqs = third.events().map((event) => event.seq);
      ensure(
        seqs.every((seq, index) => seq === index + 1),
        `seqs after the second reopen: expected 1..2002 without gaps, got ${seqs.length} seqs with the first break at index ${seqs.findIndex((seq, index) => seq !== index + 1)}`,
      );
      await third.close();
    },
  },
  {
    name: 'leaves the stored log untouched when an append is refused with a typed error',
    async run(fresh) {
      const store = await fresh();
      const session = await Session.create({ store, id: 'refused' });
      session.append('turn/start', {}, { turn: 2 });
      session.append(
        'user/message',
        { content: 'go', source: 'user' },
        { turn: 2, surfaceOp: { op: 'append' } },
      );
      const call = session.append(
        'assistant/message',
        {
          content: [{ type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }],
          finishReason: 'tool-calls',
        },
        { turn: 2, step: 1, surfaceOp: { op: 'append' } },
      );
      session.append(
        'tool/result',
        { toolCallId: 'c1', toolName: 'read', content: 'ok', isError: false },
        { turn: 2, step: 1, surfaceOp: { op: 'append' } },
      );
      const summary = { content: 'summary', source: 'compact-checkpoint' };
      await expectCode(
        () => session.append('made/up', {}),
        'UNKNOWN_EVENT_TYPE',
        'appending an unregistered event type',
      );
      await expectCode(
        () => session.append('user/message', { content: 42, source: 'user' }, { turn: 2 }),
        'INVALID_EVENT',
        'appending a user/message whose content is a number',
      );
      await expectCode(
        () => session.append('turn/start', {}, { turn: 1 }),
        'INVALID_EVENT',
        'appending with a turn lower than the last one',
      );
      await expectCode(
        () =>
          session.append('user/message', summary, {
            turn: 2,
            surfaceOp: { op: 'replace', start: call.seq, end: call.seq },
          }),
        'ILLEGAL_SURFACE_OP',
        'replacing a tool call without its result',
      );
      expectSame(session.lastSeq, 5, 'lastSeq after four refused appends');
      const reopened = await reopenSame(store, session, { what: 'refused appends' });
      expectSame(reopened.lastSeq, 5, 'lastSeq after reopening');
      await reopened.close();
    },
  },
];
