// Conformance cases about crashes, forks and damaged data: what opening repairs, what it refuses,
// and that nothing committed is ever lost.

import type { SessionEvent, ToolResultBody } from '@spine/protocol';
import { Session } from '../session.js';
import { headerEvent } from '../session-format.js';
import { NOT_STARTED_CONTENT, OUTCOME_UNKNOWN_CONTENT } from '../session-recovery.js';
import { ensure, expectCode, expectFields, expectSame, expectWorks } from './assert.js';
import { rawEvent } from './cases-store.js';
import type { StoreConformanceCase } from './types.js';

/** Cases about recovery on open, forks and corrupt data. */
export const recoveryCases: readonly StoreConformanceCase[] = [
  {
    name: 'answers interrupted tool calls on open and records session/recovered, without turn/end',
    async run(fresh) {
      const store = await fresh();
      const session = await Session.create({ store, id: 'crashy' });
      session.append('turn/start', {}, { turn: 1 });
      session.append(
        'user/message',
        { content: 'go', source: 'user' },
        { turn: 1, surfaceOp: { op: 'append' } },
      );
      session.append(
        'assistant/message',
        {
          content: [
            { type: 'tool-call', id: 'a', name: 'shell', arguments: '{}' },
            { type: 'tool-call', id: 'b', name: 'read', arguments: '{}' },
          ],
          finishReason: 'tool-calls',
        },
        { turn: 1, step: 1, surfaceOp: { op: 'append' } },
      );
      session.append(
        'tool/started',
        { toolCallId: 'a', toolName: 'shell', arguments: '{}' },
        { turn: 1, step: 1 },
      );
      await session.close();
      const peek = await Session.open({ store, id: 'crashy', readOnly: true });
      expectSame(peek.lastSeq, 5, 'lastSeq of a read-only open (which must repair nothing)');
      await peek.close();
      const reopened = await Session.open({ store, id: 'crashy' });
      const added = reopened.events({ from: 6 });
      expectSame(
        added.map((event) => event.type),
        ['tool/result', 'tool/result', 'session/recovered'],
        'the event types recovery appended',
      );
      expectFields(
        (added[0] as SessionEvent<ToolResultBody>).body,
        {
          toolCallId: 'a',
          toolName: 'shell',
          isError: true,
          outcome: 'unknown',
          content: OUTCOME_UNKNOWN_CONTENT,
        },
        'the answer to call a, which had tool/started',
      );
      expectFields(
        (added[1] as SessionEvent<ToolResultBody>).body,
        {
          toolCallId: 'b',
          toolName: 'read',
          isError: true,
          outcome: 'not-started',
          content: NOT_STARTED_CONTENT,
        },
        'the answer to call b, which never started',
      );
      ensure(
        !reopened.events().some((event) => event.type === 'turn/end'),
        'recovery wrote a turn/end; it must leave the turn open for the agent loop to decide',
      );
      expectSame(
        reopened.deriveMessages().messages.map((message) => message.role),
        ['user', 'assistant', 'tool', 'tool'],
        'message roles after recovery',
      );
      await reopened.close();
      const third = await Session.open({ store, id: 'crashy' });
      expectSame(third.lastSeq, 8, 'lastSeq on a second reopen (nothing left to repair)');
      await third.close();
    },
  },
  {
    name: 'forks at a seq into a session that shares history and records its parent',
    async run(fresh) {
      const store = await fresh();
      const session = await Session.create({ store, id: 'parent', title: 'p' });
      for (const content of ['one', 'two']) {
        session.append(
          'user/message',
          { content, source: 'user' },
          { surfaceOp: { op: 'append' } },
        );
      }
      const fork = await session.fork(2, { id: 'child' });
      // A chaining store also records the parent's chain values there (`parent.chain`).
      const { sessionId, atSeq } = fork.header.parent ?? {};
      expectSame({ sessionId, atSeq }, { sessionId: 'parent', atSeq: 2 }, 'the fork header.parent');
      expectSame(fork.header.title, 'p', 'the fork header.title');
      expectSame(fork.events().slice(1), session.events({ from: 2, to: 2 }), 'the fork events');
      fork.append(
        'user/message',
        { content: 'other', source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
      await fork.close();
      await session.close();
      const reopened = await Session.open({ store, id: 'child', readOnly: true });
      expectSame(
        reopened
          .deriveMessages()
          .messages.map((message) => ('content' in message ? message.content : '')),
        ['one', 'other'],
        'message contents of the reopened fork',
      );
      await reopened.close();
      const parent = await Session.open({ store, id: 'parent', readOnly: true });
      expectSame(parent.lastSeq, 3, 'lastSeq of the parent after forking');
      await parent.close();
    },
  },
  {
    name: 'refuses corrupt stored data with SESSION_CORRUPT and drops no committed event',
    async run(fresh) {
      const store = await fresh();
      const writer = await store.create(headerEvent('corrupt', {}));
      writer.append([
        rawEvent(
          2,
          'user/message',
          { content: 'kept', source: 'user' },
          { surfaceOp: { op: 'append' } },
        ),
        rawEvent(
          3,
          'user/message',
          { content: 'bad', source: 'user' },
          { surfaceOp: { op: 'replace', start: 40, end: 41 } },
        ),
      ]);
      await writer.close();
      const error = await expectCode(
        () => Session.open({ store, id: 'corrupt' }),
        'SESSION_CORRUPT',
        'opening a session whose seq 3 replaces a surface region that does not exist',
      );
      ensure(
        error.message.includes('seq 3') || error.message.includes(':3'),
        `the SESSION_CORRUPT message: expected it to name seq 3, got "${error.message}"`,
      );
      const raw = await store.open('corrupt', { readOnly: true });
      expectSame(
        raw.events.map((event) => event.seq),
        [1, 2, 3],
        'the seqs the store still returns after the refused open',
      );
      await raw.close();
      const again = await expectWorks(
        () => store.open('corrupt'),
        'store.open() for writing after Session.open failed (closing that writer must free the lock)',
      );
      await again.close();
    },
  },
];
