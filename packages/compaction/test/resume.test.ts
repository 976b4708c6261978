import type { ToolExecutionContext } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { withTmpDir } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/engine.js';
import { createRecallHistoryTool } from '../src/recall-history.js';
import { createTokenMeter } from '../src/token-meter.js';
import { scriptedSummarizer } from './doubles.js';
import { filler, say, toolStep } from './history.js';

const context: ToolExecutionContext = {
  callId: 'r',
  signal: new AbortController().signal,
  cwd: '/work/project',
  sandbox: 'read-only',
};

describe('compaction on a JSONL session across a restart', () => {
  it('keeps the checkpoint, the recall path and the carried facts after reopening', async () => {
    await withTmpDir(async (dir) => {
      const store = createJsonlStore({ dir, fsync: 'always' });
      const session = await Session.create({ store, cwd: dir });
      say(session, 'Upgrade the ORM. Never run the migration on prod.', { turn: 1 });
      for (let step = 1; step <= 40; step++) {
        toolStep(
          session,
          { id: `c${step}`, name: 'read_file', args: { path: `src/models/m${step}.ts` } },
          filler(100, step),
          {
            turn: 1,
            step,
          },
        );
      }
      const engine = createCompactionEngine({
        meter: createTokenMeter(),
        summarizer: scriptedSummarizer(),
      });
      const first = await engine.compact({
        session,
        reason: 'manual',
        contextWindow: 8000,
        system: 'S',
        tools: [],
      });
      expect(first.status).toBe('compacted');
      const messages = session.deriveMessages().messages.length;
      await session.close();

      const reopened = await Session.open({
        store: createJsonlStore({ dir, fsync: 'always' }),
        id: session.id,
      });
      expect(reopened.deriveMessages().messages.length).toBe(messages);
      const checkpoint = reopened.deriveMessages().messages[0];
      expect(checkpoint?.role === 'user' && checkpoint.content).toContain(
        'Never run the migration on prod.',
      );
      const recall = createRecallHistoryTool({ session: reopened });
      const original = await recall.execute({ path: 'src/models/m3.ts' }, context);
      expect(original.content).toContain(filler(100, 3));

      for (let step = 41; step <= 80; step++) {
        toolStep(
          reopened,
          { id: `c${step}`, name: 'grep', args: { pattern: `p${step}` } },
          filler(100, step),
          { turn: 1, step },
        );
      }
      const fresh = createCompactionEngine({
        meter: createTokenMeter(),
        summarizer: scriptedSummarizer(),
      });
      const second = await fresh.compact({
        session: reopened,
        reason: 'manual',
        contextWindow: 8000,
        system: 'S',
        tools: [],
      });
      expect(second.status).toBe('compacted');
      const carried = reopened.deriveMessages().messages[0];
      expect(carried?.role === 'user' && carried.content).toContain(
        'Never run the migration on prod.',
      );
      expect(carried?.role === 'user' && carried.content).toContain('src/models/m3.ts');
      await reopened.close();
    });
  });
});
