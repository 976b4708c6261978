import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { SpineError } from '@spine/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { createMemoryStore } from './store-memory.js';
import type { AppendItem } from './types.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spine-many-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const surface = { surfaceOp: { op: 'append' as const } };

function stepGroup(turn: number, step: number): AppendItem[] {
  return [
    { type: 'step/start', body: {}, options: { turn, step } },
    {
      type: 'assistant/message',
      body: { content: [{ type: 'text', text: 'done' }], finishReason: 'stop' },
      options: { turn, step, ...surface },
    },
    { type: 'step/end', body: { finishReason: 'stop', toolCalls: 0 }, options: { turn, step } },
    { type: 'turn/end', body: { reason: 'completed', steps: 1 }, options: { turn, step } },
  ];
}

async function started(): Promise<Session> {
  const session = await Session.create({ store: createMemoryStore(), id: 'many' });
  session.append('turn/start', {}, { turn: 1, step: 0 });
  session.append(
    'user/message',
    { content: 'hi', source: 'user' },
    { turn: 1, step: 0, ...surface },
  );
  return session;
}

function codeOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return SpineError.isInstance(error) ? error.code : error;
  }
  return undefined;
}

describe('Session.appendMany', () => {
  it('assigns the same gapless seqs, fields and surface as appending one by one', async () => {
    const batched = await started();
    const single = await started();
    const events = batched.appendMany(stepGroup(1, 1));
    for (const item of stepGroup(1, 1)) single.append(item.type, item.body, item.options);
    expect(events.map((event) => event.seq)).toEqual([4, 5, 6, 7]);
    expect(batched.lastSeq).toBe(7);
    const strip = (event: SessionEvent) => ({ ...event, at: '' });
    expect(batched.events({ from: 2 }).map(strip)).toEqual(single.events({ from: 2 }).map(strip));
    expect(batched.surface()).toEqual(single.surface());
    expect(batched.deriveMessages().messages).toHaveLength(2);
    expect(batched.appendMany([])).toEqual([]);
    expect(batched.lastSeq).toBe(7);
  });

  it('appends nothing when any event of the batch is refused, whatever its position', async () => {
    const session = await started();
    const before = session.events();
    const seen: number[] = [];
    session.subscribe((event) => seen.push(event.seq));
    const unknown = [...stepGroup(1, 1), { type: 'no/such-type', body: {} }];
    expect(codeOf(() => session.appendMany(unknown))).toBe('UNKNOWN_EVENT_TYPE');
    const backwards = stepGroup(1, 2);
    backwards[2] = { ...backwards[2]!, options: { turn: 1, step: 1 } };
    expect(codeOf(() => session.appendMany(backwards))).toBe('INVALID_EVENT');
    const twoOps = [...stepGroup(1, 1)];
    twoOps.splice(1, 0, {
      type: 'user/message',
      body: { content: 'again', source: 'user' },
      options: { turn: 1, step: 1, ...surface },
    });
    expect(codeOf(() => session.appendMany(twoOps))).toBe('ILLEGAL_SURFACE_OP');
    const badBody = [{ type: 'user/message', body: { content: 3 }, options: surface }];
    expect(codeOf(() => session.appendMany(badBody))).toBe('INVALID_EVENT');
    expect(session.events()).toEqual(before);
    expect(session.surface()).toEqual([3]);
    expect(seen).toEqual([]);
    expect(session.appendMany(stepGroup(1, 1)).map((event) => event.seq)).toEqual([4, 5, 6, 7]);
  });

  it('tells listeners about every event in order once the whole group is in the log', async () => {
    const session = await started();
    const seen: Array<[number, number]> = [];
    session.subscribe((event) => seen.push([event.seq, session.lastSeq]));
    session.appendMany(stepGroup(1, 1));
    expect(seen).toEqual([
      [4, 7],
      [5, 7],
      [6, 7],
      [7, 7],
    ]);
  });

  it('refuses a closed session', async () => {
    const session = await started();
    await session.close();
    expect(codeOf(() => session.appendMany(stepGroup(1, 1)))).toBe('SESSION_CLOSED');
  });

  it('round-trips a batch through the JSONL store', async () => {
    const store = createJsonlStore({ dir });
    const session = await Session.create({ store, id: 'jsonl-many' });
    session.append('turn/start', {}, { turn: 1, step: 0 });
    session.appendMany(stepGroup(1, 1));
    session.appendMany(stepGroup(2, 1));
    const written = session.events();
    await session.close();
    const reopened = await Session.open({ store: createJsonlStore({ dir }), id: 'jsonl-many' });
    expect(reopened.events()).toEqual(written);
    expect(reopened.surface()).toEqual([4, 8]);
    await reopened.close();
  });
});
