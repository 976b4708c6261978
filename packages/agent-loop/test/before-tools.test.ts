// The beforeTools seam: it runs after the answer is committed and before any tool starts, so a
// workspace checkpoint it records precedes every effect; a failing hook fails the step with every
// call answered "not started".
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResultBody } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, replayThenClose } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

const writeCall = {
  id: 'w1',
  name: 'write',
  arguments: JSON.stringify({ path: 'a.txt', content: 'hello\n' }),
};

describe('beforeTools', () => {
  it('runs between the assistant message and the first tool/started, with the calls', async () => {
    const seen: string[][] = [];
    harness = await createHarness({
      replies: [{ toolCalls: [writeCall] }, { text: 'done' }],
      beforeTools: async ({ session, calls, turn, step }) => {
        seen.push(calls.map((call) => call.name));
        session.append(
          'workspace/checkpoint',
          { id: 'tree', store: 'test', reason: 'step', scope: 'paths', changes: [] },
          { turn, step },
        );
      },
    });
    const result = await harness.agent.run('write a.txt');
    expect(result.reason).toBe('completed');
    expect(seen).toEqual([['write']]);
    const types = harness.session.events().map((event) => event.type);
    const message = types.indexOf('assistant/message');
    const checkpoint = types.indexOf('workspace/checkpoint');
    expect(message).toBeLessThan(checkpoint);
    expect(checkpoint).toBeLessThan(types.indexOf('tool/started'));
  }, 60_000);

  it('fails the step and runs no tool when the hook rejects', async () => {
    harness = await createHarness({
      replies: [{ toolCalls: [writeCall] }, { text: 'never asked' }],
      beforeTools: async () => {
        throw new Error('checkpoint store unavailable');
      },
    });
    const result = await harness.agent.run('write a.txt');
    expect(result.reason).toBe('error');
    expect(result.error?.message).toMatch(/checkpoint store unavailable/);
    expect(existsSync(join(harness.workspace, 'a.txt'))).toBe(false);
    const results = harness.events('tool/result').map((event) => event.body as ToolResultBody);
    expect(results).toMatchObject([{ toolCallId: 'w1', outcome: 'not-started' }]);
    expect(harness.events('tool/started')).toHaveLength(0);
  }, 60_000);

  it('runs beforeTurnEnd after the last step and before turn/end, in the turn', async () => {
    harness = await createHarness({
      replies: [{ toolCalls: [writeCall] }, { text: 'done' }],
      beforeTurnEnd: async ({ session, turn, step }) => {
        session.append(
          'workspace/checkpoint',
          { id: 'after', store: 'test', reason: 'turn-end', scope: 'workspace', changes: [] },
          { turn, step },
        );
      },
    });
    const result = await harness.agent.run('write a.txt');
    expect(result.reason).toBe('completed');
    const events = harness.session.events();
    expect(events.at(-1)?.type).toBe('turn/end');
    expect(events.at(-2)).toMatchObject({ type: 'workspace/checkpoint', turn: 1, step: 2 });
  }, 60_000);
});
