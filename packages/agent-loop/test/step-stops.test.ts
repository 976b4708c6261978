// How a step stops early, end to end: each phase returns aborted or failed as a value, and the
// turn records it (`agent/aborted` with the phase, `turn/end`), with history still replayable.
import { createCompactionEngine, createTokenMeter } from '@spine/compaction';
import {
  type CompactionEngine,
  notStartedText,
  type ToolResultBody,
  type ToolScheduler,
} from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { createHarness, type Harness, replayThenClose } from './harness.js';

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

/** The real engine, with a person pressing escape while it compacts for `reason` (once). */
function abortingEngine(
  reason: 'pressure' | 'overflow',
  controller: AbortController,
): CompactionEngine {
  const engine = createCompactionEngine({ meter: createTokenMeter() });
  let fired = false;
  return {
    specificationVersion: 1,
    async compact(context) {
      const outcome = await engine.compact(context);
      if (context.reason === reason && !fired) {
        fired = true;
        controller.abort(new Error('escape during compaction'));
      }
      return outcome;
    },
  };
}

const typesOf = (h: Harness, type: string) => h.events(type).map((event) => event.body);

describe('a step that stops early', { timeout: 60_000 }, () => {
  it('aborted before it starts: agent/aborted pre-step, no request', async () => {
    harness = await createHarness({ replies: [{ text: 'never sent' }, { text: 'later' }] });
    const controller = new AbortController();
    controller.abort(new Error('cancelled early'));
    const result = await harness.agent.run('Hello', { signal: controller.signal });
    expect(result).toMatchObject({ reason: 'aborted', steps: 0, text: '', deniedTools: [] });
    expect(typesOf(harness, 'agent/aborted')).toEqual([
      { phase: 'pre-step', reason: 'cancelled early' },
    ]);
    expect(harness.events('request/header')).toHaveLength(0);
    expect(harness.events('step/start')).toHaveLength(0);
    expect(typesOf(harness, 'turn/end')[0]).toMatchObject({ reason: 'aborted', steps: 0 });
    const next = await harness.agent.run('Again');
    expect(next).toMatchObject({ reason: 'completed', text: 'never sent' });
  });

  it('aborted while compacting on pressure: agent/aborted compaction, no request', async () => {
    const controller = new AbortController();
    const compaction = abortingEngine('pressure', controller);
    harness = await createHarness({ replies: [{ text: 'after' }], compaction });
    const result = await harness.agent.run('Hello', { signal: controller.signal });
    expect(result.reason).toBe('aborted');
    expect(result.error?.message).toMatch(/compaction/);
    expect(typesOf(harness, 'agent/aborted')).toEqual([
      { phase: 'compaction', reason: 'escape during compaction' },
    ]);
    expect(harness.events('step/start')).toHaveLength(1);
    expect(harness.events('request/header')).toHaveLength(0);
    const next = await harness.agent.run('Go on');
    expect(next).toMatchObject({ reason: 'completed', text: 'after' });
  });

  it('aborted while compacting after an overflow: the failed attempt is recorded, no retry', async () => {
    const controller = new AbortController();
    const compaction = abortingEngine('overflow', controller);
    harness = await createHarness({
      replies: [OVERFLOW, { text: 'after' }],
      compaction,
      contextWindow: 8_192,
    });
    const result = await harness.agent.run('Hello', { signal: controller.signal });
    expect(result.reason).toBe('aborted');
    expect(typesOf(harness, 'agent/aborted')).toEqual([
      { phase: 'compaction', reason: 'escape during compaction' },
    ]);
    expect(typesOf(harness, 'assistant/attempt')).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'error', code: 'CONTEXT_OVERFLOW' }),
    ]);
    expect(harness.events('llm/retry')).toHaveLength(0);
    expect(harness.events('request/header')).toHaveLength(1);
    const next = await harness.agent.run('Go on');
    expect(next).toMatchObject({ reason: 'completed', text: 'after' });
  });

  it('a failing tool scheduler fails the step: every call gets a result, usage and text are kept', async () => {
    harness = await createHarness({
      replies: [
        {
          text: 'Running both.',
          toolCalls: [
            { id: 'a', name: 'sleep_echo', arguments: JSON.stringify({ ms: 0, text: 'a' }) },
            { id: 'b', name: 'sleep_echo', arguments: JSON.stringify({ ms: 0, text: 'b' }) },
          ],
        },
        { text: 'recovered' },
      ],
    });
    const { runtime } = harness;
    const failing: ToolScheduler = {
      specificationVersion: 1,
      specs: (agent) => runtime.specs(agent),
      run: async () => {
        throw new Error('scheduler exploded');
      },
    };
    const agent = createAgent({
      session: harness.session,
      model: harness.model,
      modelId: 'deepseek-v4-flash',
      tools: failing,
      systemPrompt: harness.prompt,
    });
    const result = await agent.run('Run two tools.');
    expect(result.reason).toBe('error');
    expect(result.error?.code).toBe('INTERNAL');
    expect(result.error?.message).toContain('the tool scheduler failed: Error: scheduler exploded');
    expect(result.text).toBe('Running both.');
    expect(result.steps).toBe(0);
    const results = typesOf(harness, 'tool/result') as ToolResultBody[];
    expect(results.map((body) => [body.toolCallId, body.outcome])).toEqual([
      ['a', 'not-started'],
      ['b', 'not-started'],
    ]);
    expect(results[0]?.content).toBe(notStartedText('the tool runtime failed'));
    const end = typesOf(harness, 'turn/end')[0] as { reason: string; usage: unknown };
    expect(end.reason).toBe('error');
    expect(end.usage).toEqual(result.usage);
    expect(harness.events('step/end')).toHaveLength(0);
    const next = await agent.run('Try again.');
    expect(next).toMatchObject({ reason: 'completed', text: 'recovered' });
  });
});
