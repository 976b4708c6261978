// The compact id set (exact windows + Bloom filter + an exact scan of the log on "maybe") assigns
// exactly the ids an exact set of every used id assigns, across lazy reopens; its state does not
// grow with the number of ids; version 1 states migrate to what folding the log gives.
import type { AssistantPart, JsonValue, SessionEvent } from '@spine/protocol';
import { createMemoryStore, Session, type SessionProjection } from '@spine/session-log';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BloomBits } from './internal/bloom.js';
import { migrateIdList } from './internal/id-window.js';
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

const idArb = fc.constantFrom('', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'call_t2s1_0', 'call_t3s1_0');
const opArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(idArb, { minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constant('reopen' as const) },
);

describe('tool call ids through the compact set', () => {
  it('assigns exactly what an exact set assigns (tiny windows and filter, lazy reopens)', async () => {
    // Two exact ids per end and a 64-bit filter: most ids land in the filter, and it says
    // "maybe" often, so the exact scan of the log is exercised.
    const fold = createToolCallIdsFold({ limit: 2, bloomBits: 64, probes: 2 });
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

  it('keeps a state of bounded size however many ids were used', () => {
    const size = (count: number) =>
      JSON.stringify(migrateIdList(Array.from({ length: count }, (_, i) => `call_${i}`))).length;
    const at10k = size(10_000);
    const at200k = size(200_000);
    expect(at200k).toBeLessThan(at10k * 1.05);
    // The version 1 state of 200k ids: every id in a list.
    const listed = JSON.stringify({ ids: Array.from({ length: 200_000 }, (_, i) => `call_${i}`) });
    expect(at200k).toBeLessThan(listed.length / 5);
  });

  it('migrates a version 1 state to the state folding the log gives', () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => (i % 7 === 0 ? `dup_${i % 5}` : `c${i}`));
    const events = ids.map(
      (id, i) =>
        ({
          seq: i + 2,
          type: 'assistant/message',
          at: '2026-12-01T12:00:00.000Z',
          body: { content: [{ type: 'tool-call', id, name: 'x', arguments: '{}' }] },
        }) as SessionEvent,
    );
    let folded = toolCallIdsFold.initial();
    for (const event of events) folded = toolCallIdsFold.apply(folded, event);
    const migrated = toolCallIdsFold.migrate?.({ ids } as JsonValue, 1);
    expect(JSON.stringify(migrated)).toBe(JSON.stringify(folded));
    expect(toolCallIdsFold.migrate?.({ ids } as JsonValue, 3)).toBeUndefined();
    // What a snapshot keeps reads back as the same filter.
    const stored = JSON.parse(JSON.stringify(folded)) as { bloom: string };
    const bloom = BloomBits.decode(stored.bloom);
    // Ids 1,024…1,975 left the newest window (the last 1,024) for the filter.
    for (const id of ids.slice(1_024, 3_000 - 1_024)) expect(bloom.mayHave(id)).toBe(true);
  });
});
