import type { ModelStreamEvent, SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { createRecordedModel, createRecordedSummarizer } from './rerun-model.js';
import { compareToolResults, recordedTurnInputs } from './rerun-record.js';

const at = '2026-11-30T00:00:00.000Z';
function event(seq: number, type: string, body: unknown, turn?: number): SessionEvent {
  return { seq, type, at, body, ...(turn === undefined ? {} : { turn }) };
}

const recorded: SessionEvent[] = [
  event(1, 'session/header', { formatVersion: 1, sessionId: 's', createdAt: at, cwd: '/old/ws' }),
  event(2, 'turn/start', {}, 1),
  event(3, 'user/message', { content: 'fix it', source: 'user' }, 1),
  event(4, 'user/message', { content: '<runtime-context>', source: 'runtime-context' }, 1),
  event(
    5,
    'assistant/message',
    {
      content: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a"}' },
      ],
      finishReason: 'tool-calls',
      provider: 'deepseek',
    },
    1,
  ),
  event(
    6,
    'tool/result',
    { toolCallId: 'c1', toolName: 'read', content: 'in /old/ws/a: 1', isError: false },
    1,
  ),
  event(
    7,
    'assistant/message',
    { content: [{ type: 'text', text: 'Done.' }], finishReason: 'stop' },
    1,
  ),
];

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const item of stream) events.push(item);
  return events;
}

describe('createRecordedModel', () => {
  it('replays recorded assistant messages in order, then refuses', async () => {
    const model = createRecordedModel({ events: recorded });
    expect(model.provider).toBe('deepseek');
    const request = { model: 'm', system: '', messages: [], tools: [] };
    const first = await collect(model.stream(request));
    expect(first.map((item) => item.type)).toEqual([
      'start',
      'reasoning-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'finish',
    ]);
    expect(first.at(-1)).toMatchObject({
      finishReason: 'tool-calls',
      message: { role: 'assistant' },
    });
    await collect(model.stream(request));
    expect(model.served).toBe(2);
    await expect(collect(model.stream(request))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('rerun comparison', () => {
  it('finds the turn inputs and compares tool results with workspace paths normalised', () => {
    expect(recordedTurnInputs(recorded)).toEqual([{ turn: 1, content: 'fix it', nextStep: [] }]);
    const typed = {
      ...event(
        8,
        'user/message',
        { content: 'also this', source: 'user', meta: { queue: 'next-step' } },
        1,
      ),
      step: 2,
    };
    expect(recordedTurnInputs([...recorded, typed])[0]?.nextStep).toEqual([
      { step: 2, content: 'also this' },
    ]);
    const rerun = [
      event(1, 'tool/result', {
        toolCallId: 'c1',
        toolName: 'read',
        content: 'in /new/ws/a: 1',
        isError: false,
      }),
    ];
    expect(
      compareToolResults(recorded, rerun, { recorded: '/old/ws', rerun: '/new/ws' }),
    ).toMatchObject({ same: 1, differences: [] });
    const changed = [
      event(1, 'tool/result', {
        toolCallId: 'c1',
        toolName: 'read',
        content: 'in /new/ws/a: 2',
        isError: false,
      }),
    ];
    const comparison = compareToolResults(recorded, changed, {
      recorded: '/old/ws',
      rerun: '/new/ws',
    });
    expect(comparison.differences).toEqual([
      {
        index: 0,
        toolName: 'read',
        toolCallId: 'c1',
        field: 'content',
        expected: 'in <workspace>/a: 1',
        actual: 'in <workspace>/a: 2',
      },
    ]);
    expect(compareToolResults(recorded, [], {}).differences[0]?.field).toBe('missing');
  });
});

describe('createRecordedSummarizer', () => {
  it('returns the recorded summaries in order and rethrows a recorded failure', async () => {
    const summarizer = createRecordedSummarizer([
      event(1, 'compaction/summary', { compactionId: 1, summary: 'first summary' }),
      event(2, 'compaction/summary', {
        compactionId: 2,
        summary: null,
        summarizerError: 'model overloaded',
      }),
    ]);
    const input = { system: '', tools: [], messages: [] };
    await expect(summarizer.summarize(input)).resolves.toEqual({ summary: 'first summary' });
    await expect(summarizer.summarize(input)).rejects.toThrow('model overloaded');
    await expect(summarizer.summarize(input)).rejects.toThrow('no more compaction summaries');
  });
});
