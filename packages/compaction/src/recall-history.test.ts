import type { ToolExecutionContext } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { filler, newSession, say, toolStep } from '../test/history.js';
import { createCompactionEngine } from './engine.js';
import { createRecallHistoryTool } from './recall-history.js';
import { createTokenMeter } from './token-meter.js';

const context: ToolExecutionContext = {
  callId: 'recall-1',
  signal: new AbortController().signal,
  cwd: '/work/project',
  sandbox: 'read-only',
};

async function compactedSession() {
  const session = await newSession();
  say(session, 'Audit the config loader.', { turn: 1 });
  toolStep(
    session,
    { id: 'cfg', name: 'read_file', args: { path: 'src/config.ts' } },
    'export const port = 8080;',
    {
      turn: 1,
      step: 1,
    },
  );
  for (let step = 2; step <= 40; step++) {
    toolStep(
      session,
      { id: `g${step}`, name: 'grep', args: { pattern: `p${step}` } },
      filler(100, step),
      { turn: 1, step },
    );
  }
  const engine = createCompactionEngine({ meter: createTokenMeter() });
  const outcome = await engine.compact({
    session,
    reason: 'manual',
    contextWindow: 8000,
    system: '',
    tools: [],
  });
  expect(outcome.status).toBe('compacted');
  return { session, compactionId: outcome.compactionId as number };
}

describe('createRecallHistoryTool', () => {
  it('declares a JSON Schema for its structured parameters', () => {
    const tool = createRecallHistoryTool({ session: {} as never });
    expect(tool.spec.name).toBe('recall_history');
    expect(Object.keys(tool.spec.parameters.properties as object)).toEqual([
      'seq',
      'seqFrom',
      'seqTo',
      'turnFrom',
      'turnTo',
      'stepFrom',
      'stepTo',
      'toolCallId',
      'path',
      'compactionId',
      'offset',
      'length',
    ]);
  });

  it('returns compacted events by path, tool call id, seq and compaction id, as the model saw them', async () => {
    const { session, compactionId } = await compactedSession();
    const tool = createRecallHistoryTool({ session });
    const byPath = await tool.execute({ path: 'src/config.ts' }, context);
    expect(byPath.content).toContain('export const port = 8080;');
    expect(byPath.content).toContain('[tool call read_file cfg] {"path":"src/config.ts"}');
    const byCall = await tool.execute({ toolCallId: 'cfg' }, context);
    expect(byCall.meta?.recalledSeqs).toEqual([3, 4]);
    const bySeq = await tool.execute({ seq: 2 }, context);
    expect(bySeq.content).toContain('Audit the config loader.');
    const byCompaction = await tool.execute({ compactionId }, context);
    expect(byCompaction.content).toMatch(/^Recalled \d+ of \d+ events/);
    expect(byCompaction.meta?.truncated).toBe(true);
    const byTurn = await tool.execute({ turnFrom: 1, turnTo: 1, stepFrom: 1, stepTo: 1 }, context);
    expect(byTurn.meta?.recalledSeqs).toEqual([3, 4]);
  });

  it('keeps answers within the size limit and says how to narrow', async () => {
    const { session } = await compactedSession();
    const tool = createRecallHistoryTool({ session, maxChars: 2000, maxEventChars: 500 });
    const output = await tool.execute({ seqFrom: 1, seqTo: session.lastSeq }, context);
    expect(output.content.length).toBeLessThan(2600);
    expect(output.content).toContain('more matching events not shown; narrow with seqFrom=');
  });

  it('answers a call without filters or with an unknown compaction id as an error', async () => {
    const { session } = await compactedSession();
    const tool = createRecallHistoryTool({ session });
    expect((await tool.execute({}, context)).isError).toBe(true);
    expect((await tool.execute({ compactionId: 1 }, context)).content).toContain(
      'No committed compaction',
    );
  });
});
