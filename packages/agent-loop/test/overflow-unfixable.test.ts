import { createCompactionEngine, createTokenMeter } from '@spine/compaction';
import type { ToolResultBody } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextOverflowError, type ToolOutputBody } from '../src/index.js';
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
          "This model's maximum context length is 8192 tokens. However, you requested 30000 tokens.",
        type: 'invalid_request_error',
        code: 'invalid_request_error',
      },
    }),
  },
};

describe('context overflow compaction cannot fix', () => {
  it('names one message that cannot fit, with sizes, as CONTEXT_OVERFLOW', async () => {
    const compaction = createCompactionEngine({ meter: createTokenMeter() });
    harness = await createHarness({ replies: [OVERFLOW], compaction, contextWindow: 8_192 });
    const result = await harness.agent.run(`Look at this: ${'x'.repeat(60_000)}`);
    expect(result.reason).toBe('error');
    expect(result.error).toBeInstanceOf(ContextOverflowError);
    const error = result.error as ContextOverflowError;
    expect(error.code).toBe('CONTEXT_OVERFLOW');
    expect(error.diagnosis).toMatchObject({ part: 'message', contextWindow: 8_192 });
    expect(error.diagnosis.tokens).toBeGreaterThan(8_192);
    expect(error.message).toMatch(/one message \(event #\d+\) takes about \d+ tokens/);
    const end = harness.events('turn/end').at(-1)?.body as { error?: { code: string } };
    expect(end.error?.code).toBe('CONTEXT_OVERFLOW');
    // The real tokenizer loads and counts 60,000 characters: ~3 s alone, over 30 s on a loaded
    // 2-core machine.
  }, 120_000);

  it('does not send a request the meter says cannot fit, and names what does not fit', async () => {
    const meter = createTokenMeter();
    const compaction = createCompactionEngine({ meter });
    harness = await createHarness({
      replies: [{ text: 'never sent' }],
      compaction,
      meter,
      contextWindow: 8_192,
    });
    const result = await harness.agent.run(`Look at this: ${'x'.repeat(60_000)}`);
    expect(result.error).toBeInstanceOf(ContextOverflowError);
    expect((result.error as ContextOverflowError).diagnosis.part).toBe('message');
    expect(harness.server.requests).toHaveLength(0);
    expect(harness.events('request/header')).toHaveLength(0);
    expect((result.error as ContextOverflowError).compaction).toMatch(/could not make room/);
    const end = harness.events('turn/end').at(-1)?.body as { error?: { code: string } };
    expect(end.error?.code).toBe('CONTEXT_OVERFLOW');
  }, 120_000);

  it('names the system prompt and tools when they alone do not fit', async () => {
    harness = await createHarness({ replies: [OVERFLOW], contextWindow: 4_200 });
    harness.prompt.register({
      id: 'huge-rules',
      sections: [{ id: 'rules', text: 'Rule. '.repeat(4_000) }],
    });
    const result = await harness.agent.run('hello');
    expect(result.error?.code).toBe('CONTEXT_OVERFLOW');
    expect((result.error as ContextOverflowError).diagnosis.part).toBe('system-and-tools');
    expect(result.error?.message).toMatch(/system prompt and tool definitions alone take about/);
  });

  it('cuts a tool result that could never fit before it is sent and keeps the whole output in the log', async () => {
    const big = `${'head '.repeat(10)}${'0123456789'.repeat(20_000)}${' tail'.repeat(10)}`;
    harness = await createHarness({
      replies: [
        {
          toolCalls: [
            { id: 'big', name: 'sleep_echo', arguments: JSON.stringify({ ms: 0, text: big }) },
          ],
        },
        { text: 'read it' },
      ],
      // The runtime already caps results at 30,000 characters; this window cannot take that.
      contextWindow: 8_192,
    });
    const result = await harness.agent.run('echo a lot');
    expect(result.reason).toBe('completed');
    const outputs = harness.events('tool/output');
    expect(outputs).toHaveLength(1);
    const output = outputs[0]!;
    const whole = (output.body as ToolOutputBody).content;
    expect(whole.length).toBeGreaterThan(20_000);
    expect(big.startsWith(whole.slice(0, 20_000))).toBe(true);
    const body = harness.events('tool/result')[0]?.body as ToolResultBody;
    expect(body.meta).toMatchObject({ truncated: true, originalSeq: output.seq });
    expect(body.meta?.originalLength).toBe(whole.length);
    expect(body.content.length).toBeLessThan(whole.length);
    expect(body.content.length).toBeLessThan(((8_192 - 4_096) / 2) * 4);
    expect(body.content).toContain(`event #${output.seq}`);
    expect(body.content.startsWith('head head')).toBe(true);
    const sent = wireMessages(harness.server.requests[1]!).find((m) => m.role === 'tool');
    expect(sent?.content).toBe(body.content);
  });
});
