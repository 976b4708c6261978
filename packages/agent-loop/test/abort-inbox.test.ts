import type { ToolResultBody, UserMessageBody } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { createHarness, type Harness, replayThenClose, wireMessages } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

const echo = (id: string, ms: number) => ({
  toolCalls: [{ id, name: 'sleep_echo', arguments: JSON.stringify({ ms, text: id }) }],
});

describe('cancellation', () => {
  it('aborts mid-stream, records agent/aborted, and a second turn starts cleanly', async () => {
    harness = await createHarness({
      replies: [
        {
          text: 'a very long answer that streams slowly, piece by piece',
          chunkSize: 4,
          delayMs: 40,
        },
        { text: 'fresh' },
      ],
    });
    const controller = new AbortController();
    harness.agent.once('text-delta', () => controller.abort(new Error('user pressed escape')));
    const aborted = await harness.agent.run('Explain everything.', { signal: controller.signal });
    expect(aborted.reason).toBe('aborted');
    expect(aborted.error?.code).toBe('ABORTED');
    expect(harness.events('agent/aborted').map((event) => event.body)).toEqual([
      { phase: 'stream', reason: 'user pressed escape' },
    ]);
    expect(
      harness
        .events('assistant/attempt')
        .map((event) => (event.body as { outcome: string }).outcome),
    ).toEqual(['aborted']);
    expect(harness.events('assistant/message')).toHaveLength(0);
    const next = await harness.agent.run('Short answer please.');
    expect(next).toMatchObject({ reason: 'completed', text: 'fresh', turn: 2 });
    harness.replayOk();
  });

  it('aborts mid-tool: the tool stops, its call gets a result, and history stays valid', async () => {
    harness = await createHarness({ replies: [echo('long', 20_000), { text: 'next turn ok' }] });
    const controller = new AbortController();
    harness.agent.once('tool-call', () => setTimeout(() => controller.abort(), 50));
    const started = Date.now();
    const aborted = await harness.agent.run('Wait a long time.', { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(aborted.reason).toBe('aborted');
    const results = harness.events('tool/result').map((event) => event.body as ToolResultBody);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ toolCallId: 'long', isError: true });
    expect(harness.events('agent/aborted')[0]!.body).toMatchObject({ phase: 'tools' });
    const next = await harness.agent.run('Go on.');
    expect(next.reason).toBe('completed');
    const wire = wireMessages(harness.server.requests[1]!);
    expect(wire.some((message) => message.role === 'tool' && message.tool_call_id === 'long')).toBe(
      true,
    );
    harness.replayOk();
  });
});

describe('cancellation during a retry wait', () => {
  it('stops waiting for a retry when the signal fires', async () => {
    harness = await createHarness({
      replies: [
        {
          error: {
            status: 429,
            body: '{"error":{"message":"slow down"}}',
            headers: { 'retry-after': '30' },
          },
        },
      ],
    });
    const controller = new AbortController();
    harness.agent.once('retry', () => setTimeout(() => controller.abort(), 20));
    const started = Date.now();
    const result = await harness.agent.run('Hello?', { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.reason).toBe('aborted');
    expect(harness.events('agent/aborted')[0]!.body).toMatchObject({ phase: 'retry-wait' });
    expect(harness.events('llm/retry-started')).toHaveLength(0);
  });
});

describe('inbox', () => {
  it('splices next-step input in before the next request of the running turn', async () => {
    harness = await createHarness({ replies: [echo('e1', 150), { text: 'done with both' }] });
    harness.agent.once('tool-call', () => harness?.agent.enqueue('Also add a test.', 'next-step'));
    const result = await harness.agent.run('Fix the bug.');
    expect(result).toMatchObject({ reason: 'completed', steps: 2 });
    const second = wireMessages(harness.server.requests[1]!);
    const toolIndex = second.findIndex((message) => message.role === 'tool');
    const addedIndex = second.findIndex((message) => message.content === 'Also add a test.');
    expect(addedIndex).toBeGreaterThan(toolIndex);
    expect(
      wireMessages(harness.server.requests[0]!).some(
        (message) => message.content === 'Also add a test.',
      ),
    ).toBe(false);
    const splices = harness
      .events('agent/inbox/spliced')
      .map((event) => event.body as { reason: string; queue: string });
    expect(splices.map((splice) => [splice.queue, splice.reason])).toEqual([
      ['next-step', 'enqueue'],
      ['next-step', 'consume'],
    ]);
    expect(harness.agent.queued('next-step')).toHaveLength(0);
    harness.replayOk();
  });

  it('keeps the turn going for next-step input that arrives during a final answer', async () => {
    harness = await createHarness({
      replies: [{ text: 'first answer', chunkSize: 3, delayMs: 10 }, { text: 'second answer' }],
    });
    harness.agent.once('text-delta', () => harness?.agent.enqueue('And in French?', 'next-step'));
    const result = await harness.agent.run('Say hello.');
    expect(result).toMatchObject({ reason: 'completed', steps: 2, text: 'second answer' });
  });

  it('runs next-turn input as its own turn after the current one', async () => {
    harness = await createHarness({
      replies: [echo('e1', 100), { text: 'turn one' }, { text: 'turn two' }],
    });
    harness.agent.once('tool-call', () =>
      harness?.agent.enqueue('Then update the changelog.', 'next-turn'),
    );
    const ends: number[] = [];
    harness.agent.on('turn-end', ({ turn }) => ends.push(turn));
    const result = await harness.agent.run('Fix the bug.');
    expect(ends).toEqual([1, 2]);
    expect(result).toMatchObject({ turn: 2, text: 'turn two' });
    expect(
      wireMessages(harness.server.requests[1]!).some(
        (message) => message.content === 'Then update the changelog.',
      ),
    ).toBe(false);
    harness.replayOk();
  });

  it('restores unconsumed input after a restart and runs it on resume', async () => {
    harness = await createHarness({ replies: [{ text: 'one' }, { text: 'two' }] });
    harness.agent.enqueue('first queued', 'next-turn');
    harness.agent.enqueue('second queued', 'next-turn');
    await harness.session.close();
    const store = createJsonlStore({ dir: harness.sessionDir, fsync: 'never' });
    const reopened = await Session.open({ store, id: harness.session.id });
    const agent = createAgent({
      session: reopened,
      model: harness.model,
      modelId: 'deepseek-v4-flash',
      tools: harness.runtime,
      systemPrompt: harness.prompt,
    });
    expect(agent.queued('next-turn').map((item) => item.content)).toEqual([
      'first queued',
      'second queued',
    ]);
    const result = await agent.resume();
    expect(result).toMatchObject({ reason: 'completed', turn: 2, text: 'two' });
    const users = reopened
      .events()
      .filter((event) => event.type === 'user/message')
      .map((event) => event.body as UserMessageBody)
      .filter((body) => body.source === 'user')
      .map((body) => body.content);
    expect(users).toEqual(['first queued', 'second queued']);
    expect(agent.queued('next-turn')).toHaveLength(0);
    harness.replayOk(reopened);
    await reopened.close();
  });
});
