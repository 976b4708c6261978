import type { AppendOptions, SessionEvent } from '@spine/protocol';
import { SpineError } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { createDefaultProjector } from './projector.js';
import { Session } from './session.js';
import { createMemoryStore } from './store-memory.js';

const surface: AppendOptions = { surfaceOp: { op: 'append' } };

async function fresh(): Promise<Session> {
  return Session.create({ store: createMemoryStore(), id: 'unit' });
}

function assistantWithCalls(...ids: string[]): unknown {
  return {
    content: ids.map((id) => ({ type: 'tool-call', id, name: 'read', arguments: '{}' })),
    finishReason: 'tool-calls',
  };
}

function result(id: string): unknown {
  return { toolCallId: id, toolName: 'read', content: 'ok', isError: false };
}

function expectRefused(session: Session, code: string, action: () => unknown): void {
  const before = session.events();
  const surfaceBefore = session.surface();
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  expect(SpineError.isInstance(caught) ? caught.code : caught).toBe(code);
  expect(session.events()).toEqual(before);
  expect(session.surface()).toEqual(surfaceBefore);
}

describe('Session.append', () => {
  it('writes the header as seq 1 and assigns gapless seqs', async () => {
    const session = await fresh();
    expect(session.get(1)?.type).toBe('session/header');
    const event = session.append('turn/start', {}, { turn: 1 });
    expect(event.seq).toBe(2);
    expect(session.append('turn/end', { reason: 'completed', steps: 0 }, { turn: 1 }).seq).toBe(3);
    expect(session.lastSeq).toBe(3);
  });

  it('refuses bodies that are not plain JSON, leaving the log untouched', async () => {
    const session = await fresh();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expectRefused(session, 'INVALID_EVENT', () =>
      session.append('turn/start', { when: new Date() }),
    );
    expectRefused(session, 'INVALID_EVENT', () => session.append('turn/start', { n: Number.NaN }));
    expectRefused(session, 'INVALID_EVENT', () => session.append('turn/start', cyclic));
    expectRefused(session, 'INVALID_EVENT', () => session.append('turn/start', { f: () => 1 }));
  });

  it('refuses unknown types, a second header and bodies failing their schema', async () => {
    const session = await fresh();
    expectRefused(session, 'UNKNOWN_EVENT_TYPE', () => session.append('bogus/type', {}));
    expectRefused(session, 'INVALID_EVENT', () => session.append('session/header', {}));
    expectRefused(session, 'INVALID_EVENT', () =>
      session.append('user/message', { content: 1, source: 'user' }, surface),
    );
    expect(() => session.append('tool/result', { toolCallId: 'x' })).toThrow(/body\.toolName/);
  });

  it('refuses turns and steps that go backwards', async () => {
    const session = await fresh();
    session.append('turn/start', {}, { turn: 2 });
    session.append('step/start', {}, { turn: 2, step: 3 });
    expectRefused(session, 'INVALID_EVENT', () => session.append('turn/start', {}, { turn: 1 }));
    expectRefused(session, 'INVALID_EVENT', () =>
      session.append('step/start', {}, { turn: 2, step: 2 }),
    );
    expectRefused(session, 'INVALID_EVENT', () => session.append('step/start', {}, { step: 1 }));
    expectRefused(session, 'INVALID_EVENT', () => session.append('step/start', {}, { turn: -1 }));
    expect(session.append('turn/start', {}, { turn: 3, step: 0 }).step).toBe(0);
  });

  it('refuses surface ops on non-surface types, malformed ops and bad source seqs', async () => {
    const session = await fresh();
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () => session.append('turn/start', {}, surface));
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () =>
      session.append(
        'user/message',
        { content: 'x', source: 'user' },
        { surfaceOp: { op: 'move' } as never },
      ),
    );
    expectRefused(session, 'INVALID_EVENT', () =>
      session.append(
        'user/message',
        { content: 'x', source: 'user' },
        { ...surface, sourceEventSeqs: [9] },
      ),
    );
  });

  it('refuses replaces of missing, reversed or pair-splitting regions', async () => {
    const session = await fresh();
    const user = session.append('user/message', { content: 'a', source: 'user' }, surface);
    const call = session.append('assistant/message', assistantWithCalls('c1'), surface);
    const answer = session.append('tool/result', result('c1'), surface);
    const summary = { content: 'summary', source: 'compact-checkpoint' };
    const replace = (start: number, end: number) =>
      session.append('user/message', summary, { surfaceOp: { op: 'replace', start, end } });
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () => replace(1, 2));
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () => replace(call.seq, user.seq));
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () => replace(user.seq, call.seq));
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () => replace(answer.seq, answer.seq));
    const replaced = replace(user.seq, answer.seq);
    expect(session.surface()).toEqual([replaced.seq]);
    expect(session.replaceGeneration).toBe(1);
  });

  it('refuses tool results that answer no open call on the surface', async () => {
    const session = await fresh();
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () =>
      session.append('tool/result', result('ghost'), surface),
    );
    session.append('assistant/message', assistantWithCalls('c1'), surface);
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () =>
      session.append('assistant/message', assistantWithCalls('c1'), surface),
    );
    session.append('tool/result', result('c1'), surface);
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () =>
      session.append('tool/result', result('c1'), surface),
    );
    // Off the surface, a result is just a logged fact.
    expect(session.append('tool/result', result('c1')).surfaceOp).toBeUndefined();
  });

  it('refuses appends after close', async () => {
    const session = await fresh();
    await session.close();
    await session.close();
    expect(() => session.append('turn/start', {})).toThrow(/closed/);
  });
});

describe('Session derivation, listeners and custom types', () => {
  it('projects the surface into messages incrementally and rebuilds after a replace', async () => {
    const session = await fresh();
    session.append('user/message', { content: 'q', source: 'user' }, surface);
    session.append('turn/start', {}, { turn: 1 });
    const first = session.deriveMessages();
    expect(first.messages).toEqual([{ role: 'user', content: 'q', source: 'user' }]);
    expect(first.seqs).toEqual([2]);
    session.append('assistant/message', assistantWithCalls('c'), { turn: 1, step: 1, ...surface });
    session.append(
      'tool/result',
      { toolCallId: 'c', toolName: 'read', content: 'body', isError: true },
      { turn: 1, step: 1, ...surface },
    );
    const second = session.deriveMessages();
    expect(second.messages[2]).toEqual({
      role: 'tool',
      toolCallId: 'c',
      toolName: 'read',
      content: 'body',
      isError: true,
    });
    expect(second.seqs).toEqual([2, 4, 5]);
    expect(session.deriveMessages()).toBe(second);
    session.append(
      'user/message',
      { content: 's', source: 'compact-checkpoint' },
      { turn: 1, surfaceOp: { op: 'replace', start: 2, end: 5 } },
    );
    const third = session.deriveMessages();
    expect(third.generation).toBe(1);
    expect(third.messages).toEqual([{ role: 'user', content: 's', source: 'compact-checkpoint' }]);
    expect(second.messages).toHaveLength(3);
  });

  it('notifies subscribers of each append until they unsubscribe, isolating a throwing listener', async () => {
    const session = await fresh();
    const seen: SessionEvent[] = [];
    const unsubscribe = session.subscribe((event) => seen.push(event));
    session.subscribe(() => {
      throw new Error('listener bug');
    });
    // The warning is captured here rather than printed, so a green run has no stray stderr.
    const warnings: string[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error, type?: string) => {
      warnings.push(`${type}: ${String(warning)}`);
    }) as typeof process.emitWarning;
    try {
      session.append('turn/start', {}, { turn: 1 });
      unsubscribe();
      session.append('turn/end', { reason: 'completed', steps: 0 }, { turn: 1 });
    } finally {
      process.emitWarning = emitWarning;
    }
    expect(seen.map((event) => event.type)).toEqual(['turn/start']);
    // The throwing listener stays subscribed: one warning per append.
    expect(warnings).toEqual([
      'SpineSessionListener: a session listener threw: Error: listener bug',
      'SpineSessionListener: a session listener threw: Error: listener bug',
    ]);
  });

  it('accepts registered custom types with their validation and projection', async () => {
    const session = await fresh();
    session.registerEventType({
      type: 'note/pinned',
      surface: true,
      validate: (body) =>
        typeof (body as { text?: unknown }).text === 'string' ? undefined : 'text must be a string',
      project: (event) => [
        {
          role: 'user',
          content: `[note] ${(event.body as { text: string }).text}`,
          source: 'note',
        },
      ],
    });
    session.registerEventType({ type: 'metrics/sample', surface: false });
    expectRefused(session, 'INVALID_EVENT', () =>
      session.append('note/pinned', { text: 3 }, surface),
    );
    session.append('note/pinned', { text: 'keep tests green' }, surface);
    session.append('metrics/sample', { cpu: 0.5 });
    expectRefused(session, 'ILLEGAL_SURFACE_OP', () =>
      session.append('metrics/sample', {}, surface),
    );
    expect(session.deriveMessages().messages).toEqual([
      { role: 'user', content: '[note] keep tests green', source: 'note' },
    ]);
    expect(() =>
      session.registerEventType({ type: 'user/message', surface: true, project: () => [] }),
    ).toThrow(/built-in/);
    expect(() => session.registerEventType({ type: 'x/y', surface: true })).toThrow(/project/);
  });

  it('refuses a fork point outside the log', async () => {
    const session = await fresh();
    await expect(session.fork(0)).rejects.toThrow(/outside/);
    await expect(session.fork(2)).rejects.toMatchObject({
      code: 'INVALID_EVENT',
      eventType: '',
      message:
        'Cannot fork session unit at seq 2: it is outside 1..1; pass a seq of the log (nothing was created)',
    });
  });

  it('refuses an unknown projection name, saying where projections are passed (not that an event was refused)', async () => {
    const session = await fresh();
    const events = session.events();
    let caught: unknown;
    try {
      session.projection('nope');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      name: 'InvalidEventError',
      code: 'INVALID_EVENT',
      eventType: '',
      message:
        'No projection is named "nope"; pass it in `projections` when the session is created or opened',
    });
    expect(session.events()).toEqual(events);
  });

  it('forks into another store, answering tool calls left open at the fork point', async () => {
    const session = await fresh();
    session.append('user/message', { content: 'go', source: 'user' }, surface);
    const call = session.append('assistant/message', assistantWithCalls('c1'), surface);
    session.append('tool/result', result('c1'), surface);
    const target = createMemoryStore();
    const fork = await session.fork(call.seq, { store: target, id: 'branch' });
    expect(fork.store).toBe(target);
    expect(fork.events().map((event) => event.type)).toEqual([
      'session/header',
      'user/message',
      'assistant/message',
      'tool/result',
      'session/recovered',
    ]);
    expect(fork.get(4)?.body).toMatchObject({ toolCallId: 'c1', outcome: 'not-started' });
    const plain = await session.fork(call.seq, { id: 'plain', recover: false });
    expect(plain.lastSeq).toBe(call.seq);
    expect(session.lastSeq).toBe(4);
  });

  it('projects only new surface events after a replace, keeping the untouched prefix', async () => {
    const base = createDefaultProjector();
    let calls = 0;
    const session = await Session.create({
      store: createMemoryStore(),
      projector: {
        specificationVersion: 1,
        project: (event) => {
          calls++;
          return base.project(event);
        },
      },
    });
    for (let i = 0; i < 100; i++) {
      session.append('user/message', { content: `m${i}`, source: 'user' }, surface);
    }
    expect(session.deriveMessages().messages).toHaveLength(100);
    expect(calls).toBe(100);
    const surfaceNow = session.surface();
    session.append(
      'user/message',
      { content: 'summary', source: 'compact-checkpoint' },
      { surfaceOp: { op: 'replace', start: surfaceNow[90]!, end: surfaceNow[99]! } },
    );
    const derived = session.deriveMessages();
    expect(calls).toBe(101);
    expect(derived.messages).toHaveLength(91);
    expect(derived.messages[90]).toEqual({
      role: 'user',
      content: 'summary',
      source: 'compact-checkpoint',
    });
    expect(derived.seqs[89]).toBe(surfaceNow[89]);
  });
});
