// The shared SessionStore conformance suite: every store runs it (see stores.test.ts). It lives
// here rather than at @spine/protocol/testing because the root vitest aliases map @spine/<pkg>
// to one file, so a protocol subpath would need a root config change.

import { setTimeout as delay } from 'node:timers/promises';
import type { SessionEvent, SessionStore, ToolResultBody } from '@spine/protocol';
import { SpineError } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { NOT_STARTED_CONTENT, OUTCOME_UNKNOWN_CONTENT, Session } from '../src/index.js';

/** What a conformance factory hands back: a fresh, empty store and how to dispose of it. */
export interface StoreUnderTest {
  store: SessionStore;
  dispose?: () => Promise<void> | void;
}

function codeOf(error: unknown): string | undefined {
  return SpineError.isInstance(error) ? error.code : undefined;
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(codeOf(error)).toBe(code);
}

/** Registers the conformance tests for the store `factory` creates. */
export function testSessionStore(
  name: string,
  factory: () => Promise<StoreUnderTest> | StoreUnderTest,
): void {
  describe(`SessionStore conformance: ${name}`, () => {
    const disposers: Array<() => Promise<void> | void> = [];
    const fresh = async (): Promise<SessionStore> => {
      const made = await factory();
      if (made.dispose) disposers.push(made.dispose);
      return made.store;
    };
    afterEach(async () => {
      for (const dispose of disposers.splice(0)) await dispose();
    });

    it('declares specificationVersion 1 and a kind', async () => {
      const store = await fresh();
      expect(store.specificationVersion).toBe(1);
      expect(store.kind).toBe(name);
    });

    it('stores appended events and reads them back in order, with the same surface and messages', async () => {
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
      const before = session.deriveMessages();
      await session.close();
      const reopened = await Session.open({ store, id: 's1' });
      expect(reopened.events()).toEqual(session.events());
      expect(reopened.surface()).toEqual([5]);
      expect(reopened.replaceGeneration).toBe(1);
      expect(reopened.deriveMessages().messages).toEqual(before.messages);
      expect(reopened.header).toMatchObject({
        sessionId: 's1',
        title: 'round trip',
        cwd: '/w',
        formatVersion: 1,
      });
      await reopened.close();
    });

    it('refuses to create an id that exists', async () => {
      const store = await fresh();
      await (await Session.create({ store, id: 'dup' })).close();
      await expectCode(Session.create({ store, id: 'dup' }), 'SESSION_EXISTS');
    });

    it('reports a missing session as SESSION_NOT_FOUND and exists() as false', async () => {
      const store = await fresh();
      await expectCode(Session.open({ store, id: 'nope' }), 'SESSION_NOT_FOUND');
      expect(await store.exists('nope')).toBe(false);
      await (await Session.create({ store, id: 'yes' })).close();
      expect(await store.exists('yes')).toBe(true);
    });

    it('gives a second writer a lock error, lets readers in, and frees the lock on close', async () => {
      const store = await fresh();
      const writer = await Session.create({ store, id: 'locked' });
      await expectCode(Session.open({ store, id: 'locked' }), 'SESSION_LOCKED');
      const reader = await Session.open({ store, id: 'locked', readOnly: true });
      expect(() => reader.append('turn/start', {})).toThrow(/read-only|readOnly/);
      await reader.close();
      await writer.close();
      const again = await Session.open({ store, id: 'locked' });
      await again.close();
    });

    it('lists sessions from their headers, newest first, with a limit', async () => {
      const store = await fresh();
      for (const id of ['older', 'newer']) {
        const session = await Session.create({ store, id, title: id });
        session.append('turn/start', {}, { turn: 1 });
        await session.close();
        await delay(15);
      }
      const all = await store.list();
      expect(all.map((summary) => summary.id)).toEqual(['newer', 'older']);
      expect(all[0]!.header.title).toBe('newer');
      expect((await store.list({ limit: 1 })).map((summary) => summary.id)).toEqual(['newer']);
    });

    it('answers interrupted tool calls on open and records session/recovered, without turn/end', async () => {
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
      const reopened = await Session.open({ store, id: 'crashy' });
      const added = reopened.events({ from: 6 });
      expect(added.map((event) => event.type)).toEqual([
        'tool/result',
        'tool/result',
        'session/recovered',
      ]);
      const a = added[0] as SessionEvent<ToolResultBody>;
      const b = added[1] as SessionEvent<ToolResultBody>;
      expect(a.body).toMatchObject({
        toolCallId: 'a',
        toolName: 'shell',
        isError: true,
        outcome: 'unknown',
        content: OUTCOME_UNKNOWN_CONTENT,
      });
      expect(b.body).toMatchObject({
        toolCallId: 'b',
        toolName: 'read',
        isError: true,
        outcome: 'not-started',
        content: NOT_STARTED_CONTENT,
      });
      expect(reopened.events().some((event) => event.type === 'turn/end')).toBe(false);
      expect(reopened.deriveMessages().messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'tool',
      ]);
      await reopened.close();
      const third = await Session.open({ store, id: 'crashy' });
      expect(third.lastSeq).toBe(reopened.lastSeq);
      await third.close();
    });

    it('forks at a seq into a session that shares history and records its parent', async () => {
      const store = await fresh();
      const session = await Session.create({ store, id: 'parent', title: 'p' });
      session.append(
        'user/message',
        { content: 'one', source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
      session.append(
        'user/message',
        { content: 'two', source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
      const fork = await session.fork(2, { id: 'child' });
      expect(fork.header.parent).toEqual({ sessionId: 'parent', atSeq: 2 });
      expect(fork.header.title).toBe('p');
      expect(fork.events().slice(1)).toEqual(session.events({ from: 2, to: 2 }));
      fork.append(
        'user/message',
        { content: 'other', source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
      await fork.close();
      await session.close();
      const reopened = await Session.open({ store, id: 'child', readOnly: true });
      expect(
        reopened
          .deriveMessages()
          .messages.map((message) => ('content' in message ? message.content : '')),
      ).toEqual(['one', 'other']);
      await reopened.close();
    });
  });
}
