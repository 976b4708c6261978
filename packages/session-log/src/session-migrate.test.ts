// Projection states migrated from an older snapshot version, the snapshot rewritten after a
// projection was folded again from the log, and `Session.recover()` after `recover: false`.
import type { JsonValue, SessionRange, SessionStore } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createMemoryStore } from './store-memory.js';
import type { SessionProjection } from './types.js';

/** A memory store that counts the ranges read from seq 1 (a projection folded from the log). */
function countingStore(): { store: SessionStore; fromStart: () => number } {
  const inner = createMemoryStore();
  let fromStart = 0;
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'readRange') {
        return (id: string, range: SessionRange) => {
          if (range.fromSeq === 1) fromStart++;
          return target.readRange(id, range);
        };
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, fromStart: () => fromStart };
}

type Texts = { texts: string[] } & { [key: string]: JsonValue };
type Counted = { count: number; last: string } & { [key: string]: JsonValue };

const v1: SessionProjection<Texts> = {
  name: 'texts',
  version: 1,
  types: ['user/message'],
  initial: () => ({ texts: [] }),
  apply(state, event) {
    state.texts.push((event.body as { content: string }).content);
    return state;
  },
};

const v2: SessionProjection<Counted> = {
  name: 'texts',
  version: 2,
  types: ['user/message'],
  initial: () => ({ count: 0, last: '' }),
  apply(state, event) {
    state.count++;
    state.last = (event.body as { content: string }).content;
    return state;
  },
};

async function written(store: SessionStore, id: string, messages: number): Promise<void> {
  const session = await Session.create({ store, id, projections: [v1] });
  for (let i = 0; i < messages; i++) {
    session.append('user/message', { content: `m${i}`, source: 'user' }, { turn: 1 });
  }
  await session.snapshot();
  await session.close();
}

describe('projection states across snapshot versions', () => {
  it('migrates an older state with the projection’s migrate, without reading the log', async () => {
    const { store, fromStart } = countingStore();
    await written(store, 's', 40);
    const migrate = (state: JsonValue, version: number): Counted | undefined => {
      if (version !== 1) return undefined;
      const texts = (state as Texts).texts;
      return { count: texts.length, last: texts.at(-1) ?? '' };
    };
    const projections = [{ ...v2, migrate }] as SessionProjection[];
    const session = await Session.open({ store, id: 's', history: 'lazy', projections });
    expect(session.projection('texts')).toEqual({ count: 40, last: 'm39' });
    expect(fromStart()).toBe(0);
    await session.close();
  });

  it('folds again once without migrate, and the next open reads the snapshot it wrote', async () => {
    const { store, fromStart } = countingStore();
    await written(store, 's', 40);
    const projections = [v2] as SessionProjection[];
    const first = await Session.open({ store, id: 's', history: 'lazy', projections });
    expect(first.projection('texts')).toEqual({ count: 40, last: 'm39' });
    expect(fromStart()).toBe(1);
    await first.close();
    const second = await Session.open({ store, id: 's', history: 'lazy', projections });
    expect(second.projection('texts')).toEqual({ count: 40, last: 'm39' });
    expect(fromStart()).toBe(1);
    await second.close();
  });
});

describe('Session.recover', () => {
  it('answers what recover: false left open, once', async () => {
    const store = createMemoryStore();
    const session = await Session.create({ store, id: 'r' });
    const call = { type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' };
    session.append(
      'user/message',
      { content: 'go', source: 'user' },
      { turn: 1, surfaceOp: { op: 'append' } },
    );
    session.append(
      'assistant/message',
      { content: [call], finishReason: 'tool-calls' },
      { turn: 1, step: 1, surfaceOp: { op: 'append' } },
    );
    session.append(
      'tool/started',
      { toolCallId: 'c1', toolName: 'read', arguments: '{}' },
      { turn: 1, step: 1 },
    );
    await session.close();
    const reopened = await Session.open({ store, id: 'r', recover: false, history: 'lazy' });
    expect(reopened.lastSeq).toBe(4);
    expect(await reopened.recover()).toBe(2);
    expect(reopened.get(5)).toMatchObject({ type: 'tool/result', body: { outcome: 'unknown' } });
    expect(reopened.get(6)?.type).toBe('session/recovered');
    expect(await reopened.recover()).toBe(0);
    await reopened.close();
  });
});
