import type { SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { isBefore } from './rerun-record.js';
import { recordedTitles } from './rerun-titles.js';

function event(seq: number, type: string, extra: Partial<SessionEvent> = {}): SessionEvent {
  return { seq, type, ts: '2026-12-06T00:00:00.000Z', body: {}, ...extra } as SessionEvent;
}

describe('recordedTitles', () => {
  it('finds the titles set between turns, each with the turn it came before', () => {
    const auto = { title: 'Fix the adder', source: 'auto' };
    const person = { title: 'Adder work', source: 'person' };
    const last = { title: 'Done', source: 'person' };
    const events = [
      event(1, 'session/header'),
      event(2, 'session/title', { body: auto }),
      event(3, 'turn/start', { turn: 1 }),
      event(4, 'user/message'),
      event(5, 'turn/end', { turn: 1 }),
      event(6, 'session/title', { body: person }),
      event(7, 'turn/start', { turn: 2 }),
      event(8, 'session/title', { body: { title: 'mid-turn', source: 'person' } }),
      event(9, 'turn/end', { turn: 2 }),
      event(10, 'session/title', { body: last }),
    ];
    const titles = recordedTitles(events);
    expect(titles).toEqual([
      { seq: 2, beforeTurn: 1, body: auto },
      { seq: 6, beforeTurn: 2, body: person },
      { seq: 10, body: last },
    ]);
    expect(titles.map((title) => isBefore(title, 1))).toEqual([true, false, false]);
    expect(titles.map((title) => isBefore(title, undefined))).toEqual([true, true, true]);
  });
});
