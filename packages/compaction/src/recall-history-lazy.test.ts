import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionLog, ToolExecutionContext } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { filler, say, toolStep } from '../test/history.js';
import { createCompactionEngine } from './engine.js';
import { createRecallHistoryTool, type RecallHistoryArgs } from './recall-history.js';
import { createTokenMeter } from './token-meter.js';

const context: ToolExecutionContext = {
  callId: 'recall-1',
  signal: new AbortController().signal,
  cwd: '/work/project',
  sandbox: 'read-only',
};
const dir = mkdtempSync(join(tmpdir(), 'recall-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A JSONL session with two compactions and a snapshot after them: most events off the surface. */
async function storedSession(): Promise<{ id: string; compactions: number[] }> {
  const store = createJsonlStore({ dir, fsync: 'never' });
  const session = await Session.create({ store, cwd: '/work/project' });
  const engine = createCompactionEngine({ meter: createTokenMeter() });
  const compactions: number[] = [];
  for (let turn = 1; turn <= 2; turn++) {
    say(session, `Audit module ${turn}.`, { turn });
    const path = `src/module-${turn}.ts`;
    toolStep(
      session,
      { id: `read${turn}`, name: 'read_file', args: { path } },
      `export const m = ${turn};`,
      {
        turn,
        step: 1,
      },
    );
    for (let step = 2; step <= 30; step++) {
      toolStep(
        session,
        { id: `g${turn}-${step}`, name: 'grep', args: { pattern: `p${step}`, path } },
        filler(100, turn * 100 + step),
        { turn, step },
      );
    }
    const outcome = await engine.compact({
      session,
      reason: 'manual',
      contextWindow: 8000,
      system: '',
      tools: [],
    });
    expect(outcome.status).toBe('compacted');
    compactions.push(outcome.compactionId as number);
  }
  await session.snapshot();
  await session.close();
  return { id: session.id, compactions };
}

/** The same session seen only through `events()` and `get()`: the path without `readEvents`. */
function withoutStreaming(session: Session): SessionLog {
  return {
    id: session.id,
    header: session.header,
    lastSeq: session.lastSeq,
    replaceGeneration: session.replaceGeneration,
    append: () => {
      throw new Error('read only');
    },
    get: (seq) => session.get(seq),
    events: (range) => session.events(range),
    surface: () => session.surface(),
    deriveMessages: () => session.deriveMessages(),
    project: (event) => session.project(event),
    subscribe: () => () => {},
    flush: async () => {},
  };
}

describe('recall_history on a lazily opened session', () => {
  it('answers every recall exactly as on a full open, for events the lazy session does not hold', async () => {
    const { id, compactions } = await storedSession();
    const store = createJsonlStore({ dir });
    const full = await Session.open({ store, id, readOnly: true });
    const lazy = await Session.open({ store, id, readOnly: true, history: 'lazy' });
    try {
      // The lazy session holds a fraction of the log: recall must read the rest from the store.
      expect(lazy.events().length).toBeLessThan(full.events().length / 4);
      const last = full.lastSeq;
      const seq = fc.integer({ min: 0, max: last + 3 });
      const args: fc.Arbitrary<RecallHistoryArgs> = fc.oneof(
        seq.map((value) => ({ seq: value })),
        fc.tuple(seq, seq).map(([seqFrom, seqTo]) => ({ seqFrom, seqTo })),
        fc
          .record({
            turnFrom: fc.nat(3),
            turnTo: fc.nat(3),
            stepFrom: fc.nat(31),
            stepTo: fc.nat(31),
          })
          .map((range) => range),
        fc
          .constantFrom('read1', 'read2', 'g1-5', 'g2-30', 'none')
          .map((toolCallId) => ({ toolCallId })),
        fc
          .record({
            path: fc.constantFrom('src/module-1.ts', 'src/module-2.ts', 'nowhere'),
            seqFrom: seq,
          })
          .map((query) => query),
        fc.constantFrom(...compactions, 1, 2).map((compactionId) => ({ compactionId })),
        fc
          .record({ seq, offset: fc.nat(400), length: fc.integer({ min: 1, max: 300 }) })
          .map((query) => query),
      );
      const options = { maxChars: 3000, maxEventChars: 700 };
      const onFull = createRecallHistoryTool({ session: full, ...options });
      const onLazy = createRecallHistoryTool({ session: lazy, ...options });
      const onArrays = createRecallHistoryTool({ session: withoutStreaming(full), ...options });
      await fc.assert(
        fc.asyncProperty(args, async (query) => {
          const expected = await onArrays.execute(query, context);
          expect(await onFull.execute(query, context)).toEqual(expected);
          expect(await onLazy.execute(query, context)).toEqual(expected);
        }),
        { numRuns: 200 },
      );
      // The compacted region itself is recalled from the store on the lazy session.
      const recalled = await onLazy.execute({ compactionId: compactions[0] as number }, context);
      expect(recalled.content).toContain('Audit module 1.');
      expect(recalled.meta?.truncated).toBe(true);
    } finally {
      await full.close();
      await lazy.close();
    }
  });
});
