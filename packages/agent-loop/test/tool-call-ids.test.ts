import type { AssistantMessageBody, ToolCallPart } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, replayThenClose } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await replayThenClose(harness);
  harness = undefined;
});

function recordedCalls(h: Harness): ToolCallPart[] {
  return h
    .events('assistant/message')
    .flatMap((event) => (event.body as AssistantMessageBody).content)
    .filter((part): part is ToolCallPart => part.type === 'tool-call');
}

const echo = (text: string) => ({ name: 'sleep_echo', arguments: `{"ms":0,"text":"${text}"}` });

describe('tool call ids from the provider', () => {
  it('gives empty ids in two responses session-unique ids and records the original', async () => {
    harness = await createHarness({
      replies: [
        {
          toolCalls: [
            { id: '', ...echo('a') },
            { id: '', ...echo('b') },
          ],
        },
        { toolCalls: [{ id: '', ...echo('c') }] },
        { text: 'done' },
      ],
    });
    const result = await harness.agent.run('echo three times');
    expect(result.reason).toBe('completed');
    const calls = recordedCalls(harness);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
    for (const call of calls) {
      expect(call.id).not.toBe('');
      expect(call.providerId).toBe('');
    }
    const results = harness
      .events('tool/result')
      .map((e) => (e.body as { toolCallId: string }).toolCallId);
    expect(results).toEqual(calls.map((call) => call.id));
    // The provider is sent back the session ids, each tool message paired with its call.
    const last = harness.server.requests.at(-1)?.body as {
      messages: Array<{ role: string; tool_call_id?: string; tool_calls?: Array<{ id: string }> }>;
    };
    const sentCalls = last.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
    const sentResults = last.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(sentCalls).toEqual(calls.map((call) => call.id));
    expect(sentResults).toEqual(sentCalls);
  });

  it('renames an id the provider reuses in every response (call_0) and in one response', async () => {
    harness = await createHarness({
      replies: [
        {
          toolCalls: [
            { id: 'call_0', ...echo('a') },
            { id: 'call_0', ...echo('b') },
          ],
        },
        { toolCalls: [{ id: 'call_0', ...echo('c') }] },
        { text: 'done' },
      ],
    });
    const result = await harness.agent.run('echo');
    expect(result.reason).toBe('completed');
    const calls = recordedCalls(harness);
    expect(calls.map((call) => call.id)[0]).toBe('call_0');
    expect(calls[0]?.providerId).toBeUndefined();
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
    expect(calls.slice(1).map((call) => call.providerId)).toEqual(['call_0', 'call_0']);
    expect(harness.events('turn/end').at(-1)?.body).toMatchObject({ reason: 'completed' });
  });

  it('keeps distinct provider ids untouched (no providerId recorded)', async () => {
    harness = await createHarness({
      replies: [{ toolCalls: [{ id: 'call_A', ...echo('a') }] }, { text: 'done' }],
    });
    await harness.agent.run('echo');
    const calls = recordedCalls(harness);
    expect(calls.map((call) => [call.id, call.providerId])).toEqual([['call_A', undefined]]);
  });
});
