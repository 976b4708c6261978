import type { ToolResultBody } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { TurnEndBody } from '../src/index.js';
import { createHarness, type Harness, replayThenClose } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await replayThenClose(harness);
  harness = undefined;
});

describe('a bug inside a turn', () => {
  it('ends the turn with turn/end INTERNAL and answers the open tool calls instead of throwing', async () => {
    harness = await createHarness({
      replies: [
        {
          toolCalls: [{ id: 'call_1', name: 'sleep_echo', arguments: '{"ms":0,"text":"a"}' }],
        },
      ],
    });
    harness.agent.on('tool-call', () => {
      throw new Error('a listener with a bug');
    });
    const result = await harness.agent.run('echo');
    expect(result.reason).toBe('error');
    expect(result.error?.code).toBe('INTERNAL');
    expect(result.error?.message).toMatch(/a listener with a bug.*this is a bug/);
    const end = harness.events('turn/end').at(-1)?.body as TurnEndBody;
    expect(end).toMatchObject({ reason: 'error', error: { code: 'INTERNAL' } });
    const results = harness.events('tool/result').map((event) => event.body as ToolResultBody);
    expect(results).toMatchObject([{ toolCallId: 'call_1', outcome: 'not-started' }]);
  });
});
