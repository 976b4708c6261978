import { createCompactionEngine, createTokenMeter } from '@spine/compaction';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestHeaderBody } from '../src/index.js';
import { createHarness, type Harness, replayThenClose, wireMessages } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

const OVERFLOW = {
  error: {
    status: 400,
    body: JSON.stringify({
      error: {
        message:
          "This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
        type: 'invalid_request_error',
        code: 'invalid_request_error',
      },
    }),
  },
};

const WORDS = [
  'parser',
  'lexer',
  'token',
  'module',
  'fixture',
  'branch',
  'compile',
  'vector',
  'schema',
  'cursor',
];
function prose(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++)
    out.push(`${WORDS[(seed * 7 + i * 3) % WORDS.length]}${(seed * 31 + i) % 97}`);
  return out.join(' ');
}

describe('context overflow', () => {
  it('compacts through the CompactionEngine and retries the same step', async () => {
    const meter = createTokenMeter();
    const compaction = createCompactionEngine({ meter });
    const steps = Array.from({ length: 6 }, (_, i) => ({
      toolCalls: [
        {
          id: `e${i}`,
          name: 'sleep_echo',
          arguments: JSON.stringify({ ms: 0, text: prose(i, 400) }),
        },
      ],
    }));
    harness = await createHarness({
      replies: [
        ...steps,
        { text: 'turn one done' },
        OVERFLOW,
        { text: 'answered after compaction' },
      ],
      compaction,
      contextWindow: 1_000_000,
    });
    const first = await harness.agent.run('Collect the data.');
    expect(first.reason).toBe('completed');
    const measured = meter.measure({
      session: harness.session,
      system: harness.prompt.assemble().system,
      tools: harness.runtime.specs(),
    });
    harness.agent.setModel(harness.model, 'deepseek-v4-flash', Math.ceil(measured.tokens / 0.6));

    const compactions: string[] = [];
    harness.agent.on('compaction', ({ outcome }) => compactions.push(outcome.status));
    const second = await harness.agent.run('Now summarise it.');
    expect(second).toMatchObject({ reason: 'completed', text: 'answered after compaction' });
    expect(compactions).toEqual(['compacted']);
    const retry = harness
      .events('llm/retry')
      .map((event) => event.body as { reason: string; compactionId?: number });
    expect(retry).toHaveLength(1);
    expect(retry[0]?.compactionId).toBeGreaterThan(0);
    expect(harness.events('compaction/end')).toHaveLength(1);

    const [overflowed, retried] = harness.server.requests
      .slice(-2)
      .map((request) => wireMessages(request));
    expect(retried!.length).toBeLessThan(overflowed!.length);
    for (const wire of [overflowed!, retried!]) {
      expect(wire.filter((message) => message.content === 'Now summarise it.')).toHaveLength(1);
    }
    const headers = harness
      .events('request/header')
      .map((event) => event.body as RequestHeaderBody);
    const last = headers.at(-1)!;
    expect(last).toMatchObject({ turn: 2, step: 1, attempt: 2 });
    expect(last.prefix.causes).toContain('compaction-replaced-region');
    harness.replayOk();
  });

  it('fails the turn with a clear error when no compaction engine is configured', async () => {
    harness = await createHarness({ replies: [OVERFLOW] });
    const result = await harness.agent.run('Too much.');
    expect(result.reason).toBe('error');
    expect(result.error?.code).toBe('COMPACTION_DISABLED');
    expect(result.error?.message).toMatch(/no compaction engine is configured/);
    expect(harness.events('llm/retry')).toHaveLength(0);
  });

  it('tells live listeners when compaction is switched off on the overflow path', async () => {
    const compaction = createCompactionEngine({ meter: createTokenMeter(), auto: false });
    harness = await createHarness({ replies: [OVERFLOW], compaction });
    const outcomes: { status: string; message?: string }[] = [];
    harness.agent.on('compaction', ({ outcome }) => outcomes.push(outcome));
    const result = await harness.agent.run('Too much.');
    expect(result.reason).toBe('error');
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['disabled']);
    expect(outcomes[0]?.message).toBeTruthy();
    expect(harness.events('llm/retry')).toHaveLength(0);
  });
});
