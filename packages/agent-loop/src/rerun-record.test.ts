import type { SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { completedCompactions, isBefore, recordedManualCompactions } from './rerun-record.js';

const at = '2026-11-30T00:00:00.000Z';

/** Builds a recorded event list from short specs; seqs are assigned in order. */
function session(specs: [type: string, body?: unknown, turn?: number][]): SessionEvent[] {
  return specs.map(([type, body, turn], index) => ({
    seq: index + 1,
    type,
    at,
    body: body ?? {},
    ...(turn === undefined ? {} : { turn }),
  }));
}

const header: [string, unknown] = ['session/header', { formatVersion: 1, sessionId: 's' }];

describe('recordedManualCompactions', () => {
  it('places a completed manual compaction between the turns it ran between', () => {
    const events = session([
      header,
      ['turn/start', {}, 1],
      ['turn/end', { reason: 'completed' }, 1],
      ['compaction/start', { reason: 'manual' }],
      ['compaction/summary', { compactionId: 4, summary: 'so far' }],
      ['compaction/end', { compactionId: 4 }],
      ['turn/start', {}, 2],
      ['turn/end', { reason: 'completed' }, 2],
    ]);
    expect(recordedManualCompactions(events)).toEqual([
      { afterTurns: 1, beforeTurn: 2, seq: 4, outcome: 'completed' },
    ]);
    expect(completedCompactions(events)).toBe(1);
  });

  it('finds manual compactions before the first turn and after the last one', () => {
    const events = session([
      header,
      ['compaction/start', { reason: 'manual' }],
      ['compaction/failed', { compactionId: 2, reason: 'manual', stage: 'checkpoint' }],
      ['turn/start', {}, 1],
      ['turn/end', {}, 1],
      ['compaction/start', { reason: 'manual' }],
      ['compaction/end', { compactionId: 6 }],
      ['compaction/failed', { compactionId: null, reason: 'manual', stage: 'select' }],
    ]);
    expect(recordedManualCompactions(events)).toEqual([
      { afterTurns: 0, beforeTurn: 1, seq: 2, outcome: 'failed' },
      { afterTurns: 1, seq: 6, outcome: 'completed' },
      { afterTurns: 1, seq: 8, outcome: 'failed' },
    ]);
    expect(completedCompactions(events)).toBe(1);
  });

  it('ignores automatic compactions and manual ones the recording never saw end', () => {
    const events = session([
      header,
      ['turn/start', {}, 1],
      ['compaction/start', { reason: 'pressure' }, 1],
      ['compaction/end', { compactionId: 3 }, 1],
      ['compaction/failed', { compactionId: null, reason: 'overflow', stage: 'select' }, 1],
      ['turn/end', {}, 1],
      ['turn/start', {}, 2],
      ['turn/end', {}, 2],
      ['compaction/start', { reason: 'manual' }],
    ]);
    expect(recordedManualCompactions(events)).toEqual([]);
    expect(completedCompactions(events)).toBe(1);
  });

  it('counts several manual compactions at one position and uses the recorded turn numbers', () => {
    const events = session([
      header,
      ['turn/start', {}, 3],
      ['turn/end', {}, 3],
      ['compaction/start', { reason: 'manual' }],
      ['compaction/end', { compactionId: 4 }],
      ['compaction/start', { reason: 'manual' }],
      ['compaction/end', { compactionId: 6 }],
      ['turn/start', {}, 4],
    ]);
    expect(recordedManualCompactions(events)).toEqual([
      { afterTurns: 1, beforeTurn: 4, seq: 4, outcome: 'completed' },
      { afterTurns: 1, beforeTurn: 4, seq: 6, outcome: 'completed' },
    ]);
    expect(completedCompactions(events)).toBe(2);
  });
});

describe('isBefore', () => {
  it('places a compaction before its next turn and later ones, and everything before no turn', () => {
    const between = { afterTurns: 1, beforeTurn: 2, seq: 4, outcome: 'completed' as const };
    const last = { afterTurns: 2, seq: 9, outcome: 'completed' as const };
    expect([1, 2, 3].map((turn) => isBefore(between, turn))).toEqual([false, true, true]);
    expect([1, 2, 3].map((turn) => isBefore(last, turn))).toEqual([false, false, false]);
    expect(isBefore(last, undefined)).toBe(true);
  });
});
