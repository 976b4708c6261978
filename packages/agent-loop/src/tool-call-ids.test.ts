// The compact id set (exact windows + Bloom filters + an exact scan of the log on "maybe") assigns
// exactly the ids an exact set of every used id assigns, across lazy reopens; its state is bounded
// whatever the number of ids and follows what the filters hold below that bound (a snapshot does
// not jump by the whole cap once 2,048 ids were used); version 1 and 2 states migrate without the
// log.
import type { AssistantPart, JsonValue, SessionEvent } from '@spine/protocol';
import { createMemoryStore, Session, type SessionProjection } from '@spine/session-log';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BloomBits } from './internal/bloom.js';
import {
  BLOOM_BITS,
  EXACT_IDS,
  filtersMayHave,
  type IdWindowState,
  migrateIdList,
} from './internal/id-window.js';
import { createToolCallIdsFold, toolCallIdsFold } from './projections.js';
import { assignToolCallIds, settleToolCallIds } from './tool-call-ids.js';

/** The assignment with an exact set of every id used before (what version 1 did). */
function exactAssign(
  used: ReadonlySet<string>,
  content: readonly AssistantPart[],
  at: { turn: number; step: number },
): string[] {
  const fresh = new Set<string>();
  const ids: string[] = [];
  const later = (from: number, id: string) =>
    content.slice(from + 1).some((part) => part.type === 'tool-call' && part.id === id);
  content.forEach((part, i) => {
    if (part.type !== 'tool-call') return;
    const index = ids.length;
    if (part.id !== '' && !used.has(part.id) && !fresh.has(part.id)) {
      fresh.add(part.id);
      ids.push(part.id);
      return;
    }
    let id = `call_t${at.turn}s${at.step}_${index}`;
    for (let n = 2; used.has(id) || fresh.has(id) || later(i, id); n++) {
      id = `call_t${at.turn}s${at.step}_${index}_${n}`;
    }
    fresh.add(id);
    ids.push(id);
  });
  return ids;
}

/** An assistant message proposing one tool call with `id` (seq `i + 2`). */
function callEvent(id: string, i: number): SessionEvent {
  return {
    seq: i + 2,
    type: 'assistant/message',
    at: '2026-12-01T12:00:00.000Z',
    body: { content: [{ type: 'tool-call', id, name: 'x', arguments: '{}' }] },
  } as SessionEvent;
}

const idArb = fc.constantFrom('', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'call_t2s1_0', 'call_t3s1_0');
const opArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(idArb, { minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constant('reopen' as const) },
);

describe('tool call ids through the compact set', () => {
  it('assigns exactly what an exact set assigns (tiny windows and filter, lazy reopens)', async () => {
    // Two exact ids per end and filters of 16 and 32 bits (64 together at most): most ids land
    // in the filters, a second filter starts and the last takes the rest, and they say "maybe"
    // often, so the exact scan of the log is exercised.
    const fold = createToolCallIdsFold({ limit: 2, bloomBits: 64, firstBloomBits: 16, probes: 2 });
    const projections = [fold as unknown as SessionProjection];
    let scans = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), async (ops) => {
        const store = createMemoryStore();
        let session = await Session.create({ store, id: 's', projections });
        const used = new Set<string>();
        let turn = 1;
        for (const op of ops) {
          if (op === 'reopen') {
            await session.snapshot();
            await session.close();
            session = await Session.open({ store, id: 's', history: 'lazy', projections });
            continue;
          }
          turn++;
          const at = { turn, step: 1 };
          const content = op.map(
            (id): AssistantPart => ({ type: 'tool-call', id, name: 'x', arguments: '{}' }),
          );
          const settling = settleToolCallIds(session, content, at);
          if (settling) {
            scans++;
            await settling;
          }
          const assigned = assignToolCallIds(session, content, at);
          const ids = assigned.map((part) => (part.type === 'tool-call' ? part.id : ''));
          expect(ids).toEqual(exactAssign(used, content, at));
          for (const id of ids) used.add(id);
          session.append(
            'assistant/message',
            { content: assigned, finishReason: 'tool-calls' },
            { turn, step: 1, surfaceOp: { op: 'append' } },
          );
        }
        await session.close();
      }),
      { numRuns: 150 },
    );
    expect(scans).toBeGreaterThan(0);
  });

  it('keeps a state no larger than its cap however many ids were used', () => {
    const size = (count: number) =>
      JSON.stringify(migrateIdList(Array.from({ length: count }, (_, i) => `call_${i}`))).length;
    const at200k = size(200_000);
    const at1m = size(1_000_000);
    // The filters' cap in base64, and the two exact windows.
    const cap = (BLOOM_BITS / 8) * (4 / 3) + 2 * EXACT_IDS * 16;
    expect(at200k).toBeLessThan(cap);
    expect(at1m).toBe(at200k + 1);
    // The version 1 state of 200k ids: every id in a list.
    const listed = JSON.stringify({ ids: Array.from({ length: 200_000 }, (_, i) => `call_${i}`) });
    expect(at200k).toBeLessThan(listed.length / 5);
  });

  it('grows its filters with the ids they hold, not by the whole cap at once', () => {
    const ids = (count: number) => Array.from({ length: count }, (_, i) => `call_${i}`);
    const filterBytes = (count: number) => JSON.stringify(migrateIdList(ids(count)).filters).length;
    expect(filterBytes(2 * EXACT_IDS)).toBe(2);
    // 9,086 ids, as a 100k-event coding session uses: 7,038 in filters of 16 + 32 + 64 Kbit.
    // Version 2 held them in one 2 Mbit filter (349,532 characters of base64).
    expect(filterBytes(9_086)).toBeLessThan(20_000);
    // Below the cap, 16 to 32 bits per id in the filters (2⅔ to 5⅓ characters of base64: a
    // filter just started holds few), whatever the count.
    for (const count of [3_000, 9_086, 40_000, 100_000]) {
      expect(filterBytes(count) / (count - 2 * EXACT_IDS)).toBeLessThan(6);
    }
    const state = migrateIdList(ids(40_000));
    expect(state.filters.map((filter) => filter.size)).toEqual([
      2 ** 14,
      2 ** 15,
      2 ** 16,
      2 ** 17,
      2 ** 18,
      2 ** 19,
    ]);
    for (const id of ids(40_000).slice(EXACT_IDS, 40_000 - EXACT_IDS)) {
      expect(filtersMayHave(state, id)).toBe(true);
    }
    let hits = 0;
    for (let i = 0; i < 20_000; i++) if (filtersMayHave(state, `fresh_${i}`)) hits++;
    expect(hits / 20_000).toBeLessThan(0.01);
  });

  it('migrates a version 2 state (one whole-size filter) to small filters that hold its ids', () => {
    // What version 2 wrote for 9,086 ids: both windows and one filter of 2^21 bits.
    const ids = Array.from({ length: 9_086 }, (_, i) => `call_${i + 1}`);
    const middle = ids.slice(EXACT_IDS, ids.length - EXACT_IDS);
    const bloom = new BloomBits(BLOOM_BITS, 5);
    for (const id of middle) bloom.add(id);
    const version2 = {
      count: ids.length,
      limit: EXACT_IDS,
      bloomBits: BLOOM_BITS,
      probes: 5,
      first: ids.slice(0, EXACT_IDS),
      newest: ids.slice(-EXACT_IDS),
      bloom: bloom.toJSON(),
    };
    const migrated = toolCallIdsFold.migrate?.(version2, 2) as IdWindowState;
    expect(migrated.filters).toHaveLength(1);
    expect(migrated.filters[0]?.size).toBe(2 ** 17);
    expect(JSON.stringify(migrated).length).toBeLessThan(JSON.stringify(version2).length / 5);
    // Nothing the old filter held is lost: folding keeps every bit of every id.
    for (const id of middle) expect(filtersMayHave(migrated, id)).toBe(true);
    // New ids go on in filters after it, and the state reads back the same from JSON.
    for (let i = 0; i < 5_000; i++) toolCallIdsFold.apply(migrated, callEvent(`next_${i}`, i));
    const restored = JSON.parse(JSON.stringify(migrated)) as IdWindowState;
    for (const id of [...middle, 'next_0', 'next_3000']) {
      expect(filtersMayHave(restored, id)).toBe(true);
    }
    expect(toolCallIdsFold.migrate?.({ ids: 'not a list' } as JsonValue, 2)).toBeUndefined();
  });

  it('snapshots a session of 9,086 tool calls at a few bytes per call past the windows', async () => {
    const projections = [toolCallIdsFold as unknown as SessionProjection];
    const snapshotBytes = async (calls: number) => {
      const store = createMemoryStore();
      const session = await Session.create({ store, id: 's', projections });
      for (let i = 1; i <= calls; i++) {
        session.append(
          'assistant/message',
          {
            content: [{ type: 'tool-call', id: `call_${i}`, name: 'read', arguments: '{}' }],
            finishReason: 'tool-calls',
          },
          { turn: i, step: 1 },
        );
      }
      await session.snapshot();
      await session.close();
      return (await store.readSnapshot('s'))?.data.length ?? 0;
    };
    const at2048 = await snapshotBytes(2 * EXACT_IDS);
    const at9086 = await snapshotBytes(9_086);
    // The windows hold the same number of ids (a few characters longer each), the filters 3 to 5
    // characters per id; version 2 added 349,532 characters of filter at the 2,049th id.
    expect((at9086 - at2048) / (9_086 - 2 * EXACT_IDS)).toBeLessThan(6);
  });

  it('migrates a version 1 state to the state folding the log gives', () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => (i % 7 === 0 ? `dup_${i % 5}` : `c${i}`));
    const events = ids.map((id, i) => callEvent(id, i));
    let folded = toolCallIdsFold.initial();
    for (const event of events) folded = toolCallIdsFold.apply(folded, event);
    const migrated = toolCallIdsFold.migrate?.({ ids } as JsonValue, 1);
    expect(JSON.stringify(migrated)).toBe(JSON.stringify(folded));
    expect(toolCallIdsFold.migrate?.({ ids } as JsonValue, 4)).toBeUndefined();
    // What a snapshot keeps reads back as the same filters.
    const stored = JSON.parse(JSON.stringify(folded)) as IdWindowState;
    expect(stored.filters.every((filter) => typeof filter.bits === 'string')).toBe(true);
    // Ids 1,024…1,975 left the newest window (the last 1,024) for the filters.
    for (const id of ids.slice(1_024, 3_000 - 1_024)) {
      expect(filtersMayHave(stored, id)).toBe(true);
    }
  });
});
