import { createCompactionEngine, createTokenMeter } from '@spine/compaction';
import type { CompactionContext, CompactionEngine } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentBusyError } from '../src/index.js';
import { createHarness, type Harness, replayThenClose } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

/** Six steps each echoing ~2 KB, so there is history worth folding. */
const STEPS = Array.from({ length: 6 }, (_, i) => ({
  toolCalls: [
    {
      id: `e${i}`,
      name: 'sleep_echo',
      arguments: JSON.stringify({ ms: 0, text: `result ${i} `.repeat(200) }),
    },
  ],
}));

describe('Agent.compact', () => {
  it('compacts between turns with the prompt and tools in force, keeping the focus', async () => {
    // The real engine, watched: what the agent hands it is what a `/compact` must hand it.
    const engine = createCompactionEngine({ meter: createTokenMeter() });
    const seen: CompactionContext[] = [];
    const watched: CompactionEngine = {
      specificationVersion: 1,
      compact: (context) => {
        seen.push(context);
        return engine.compact(context);
      },
    };
    harness = await createHarness({
      replies: [...STEPS, { text: 'collected' }, { text: 'still works' }],
      compaction: watched,
    });
    expect((await harness.agent.run('Collect the data.')).reason).toBe('completed');
    const before = harness.session.deriveMessages().messages.length;
    const outcome = await harness.agent.compact({ focus: 'result 5' });
    expect(outcome.status).toBe('compacted');
    const manual = seen.filter((context) => context.reason === 'manual');
    expect(manual).toHaveLength(1);
    expect(manual[0]).toMatchObject({
      focus: 'result 5',
      contextWindow: 128_000,
      system: harness.prompt.assemble({ tools: harness.runtime.specs() }).system,
      tools: harness.runtime.specs(),
    });
    expect(harness.events('compaction/start').at(-1)?.body).toMatchObject({ reason: 'manual' });
    expect(harness.events('compaction/end')).toHaveLength(1);
    expect(harness.session.deriveMessages().messages.length).toBeLessThan(before);
    // The next request is built on the compacted surface and replays from the log.
    const next = await harness.agent.run('Go on.');
    expect(next).toMatchObject({ reason: 'completed', text: 'still works' });
  });

  it('resolves disabled without an engine, and refuses while a turn runs', async () => {
    harness = await createHarness({
      replies: [
        { toolCalls: [{ id: 's1', name: 'sleep_echo', arguments: '{"ms":300,"text":"x"}' }] },
        { text: 'done' },
      ],
    });
    const events = harness.session.events().length;
    expect(await harness.agent.compact()).toMatchObject({ status: 'disabled' });
    expect(harness.session.events()).toHaveLength(events);
    const running = harness.agent.run('Wait a little.');
    await expect(harness.agent.compact()).rejects.toBeInstanceOf(AgentBusyError);
    expect((await running).reason).toBe('completed');
  });
});
