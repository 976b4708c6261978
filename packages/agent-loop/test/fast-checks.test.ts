import { BUILTIN_EVENT_TYPES } from '@spine/protocol';
import { afterEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { createHarness, type Harness, replayThenClose } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

// session-log checks the bodies an agent writes as it runs by hand (each check property-tested
// against its schema) and falls back to the zod schema only for anything unusual. A check that
// grew stricter than what the loop writes would still pass every correctness test, only slower:
// this test fails instead, by watching the schemas' own `safeParse` during real turns.
describe('the bodies a turn writes', () => {
  it('pass the hand-written checks: no event of a tool-calling turn falls back to zod', async () => {
    harness = await createHarness({
      replies: [
        {
          toolCalls: [
            {
              id: 'c1',
              name: 'write',
              arguments: JSON.stringify({ path: 'a.txt', content: 'one "quoted" line é\n' }),
            },
          ],
        },
        { text: 'Written.' },
        { toolCalls: [{ id: 'c2', name: 'read', arguments: JSON.stringify({ path: 'a.txt' }) }] },
        { text: 'It says one quoted line.' },
      ],
    });
    const spies = new Map<string, MockInstance>();
    for (const [type, definition] of Object.entries(BUILTIN_EVENT_TYPES)) {
      spies.set(type, vi.spyOn(definition.body, 'safeParse'));
    }
    expect((await harness.agent.run('Write a.txt.')).reason).toBe('completed');
    expect((await harness.agent.run('Read it back.')).reason).toBe('completed');

    const written = new Set(harness.session.events().map((event) => event.type));
    // The whole of a plain step with tools, the recorded request and the turn around it.
    for (const type of [
      'turn/start',
      'user/message',
      'step/start',
      'prompt/system',
      'tools/defined',
      'request/header',
      'request/context',
      'assistant/message',
      'assistant/attempt',
      'tool/started',
      'tool/result',
      'step/end',
      'turn/end',
    ]) {
      expect(written.has(type), type).toBe(true);
    }
    const fellBack = [...written].filter((type) => (spies.get(type)?.mock.calls.length ?? 0) > 0);
    expect(fellBack).toEqual([]);
  });
});
