import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResultBody, UserMessageBody } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type AttemptBody, type RequestHeaderBody, replay } from '../src/index.js';
import { createHarness, type Harness, replayThenClose, wireMessages } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

describe('agent loop, end to end against a loopback model server', () => {
  it('runs a multi-step tool loop with real workspace tools and replays every request', async () => {
    harness = await createHarness({
      replies: [
        {
          toolCalls: [
            {
              id: 'c1',
              name: 'write',
              arguments: JSON.stringify({ path: 'notes/a.txt', content: 'hello spine\n' }),
            },
          ],
        },
        {
          toolCalls: [
            { id: 'c2', name: 'read', arguments: JSON.stringify({ path: 'notes/a.txt' }) },
          ],
        },
        { text: 'The file says hello spine.' },
      ],
    });
    const deltas: string[] = [];
    harness.agent.on('text-delta', ({ text }) => deltas.push(text));
    const result = await harness.agent.run('Write notes/a.txt and read it back.');
    expect(result).toMatchObject({
      reason: 'completed',
      steps: 3,
      text: 'The file says hello spine.',
    });
    expect(deltas.join('')).toBe('The file says hello spine.');
    expect(readFileSync(join(harness.workspace, 'notes/a.txt'), 'utf8')).toBe('hello spine\n');
    expect(harness.server.requests).toHaveLength(3);
    const last = wireMessages(harness.server.requests[2]!);
    expect(
      last.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
    ).toEqual(['c1', 'c2']);
    expect(last.find((message) => message.tool_call_id === 'c2')?.content).toContain('hello spine');
    const types = harness.session.events().map((event) => event.type);
    expect(types.filter((type) => type === 'tool/started')).toHaveLength(2);
    expect(types.filter((type) => type === 'turn/end')).toHaveLength(1);
    const headers = harness
      .events('request/header')
      .map((event) => event.body as RequestHeaderBody);
    expect(headers.map((header) => [header.turn, header.step, header.attempt])).toEqual([
      [1, 1, 1],
      [1, 2, 1],
      [1, 3, 1],
    ]);
    expect(headers.every((header) => header.prefix.extends)).toBe(true);
    harness.replayOk();
    // From the log alone, replay rebuilds the exact bytes the server received.
    const report = replay(harness.session, { model: harness.model });
    expect(report.requests.map((request) => request.wireHash)).toEqual(
      harness.server.requests.map(
        (request) => `sha256:${createHash('sha256').update(request.raw).digest('hex')}`,
      ),
    );
    // "What exactly did the model see at step N": the rebuilt requests themselves, verified.
    const seen: { step: number; ok: boolean; wire: string; last: string }[] = [];
    const { model } = harness;
    replay(harness.session, {
      onRequest: (request, verdict) =>
        seen.push({
          step: verdict.step,
          ok: verdict.ok,
          wire: model.encodeRequest?.(request) ?? '',
          last: JSON.stringify(request.messages.at(-1)),
        }),
    });
    expect(seen.map(({ step, ok }) => [step, ok])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(seen.map(({ wire }) => wire)).toEqual(
      harness.server.requests.map((request) => request.raw),
    );
    expect(seen[2]?.last).toContain('hello spine');
  });

  it('commits parallel tool calls in call order although they finish in reverse', async () => {
    harness = await createHarness({
      replies: [
        {
          toolCalls: [
            {
              id: 'slow',
              name: 'sleep_echo',
              arguments: JSON.stringify({ ms: 300, text: 'first' }),
            },
            {
              id: 'mid',
              name: 'sleep_echo',
              arguments: JSON.stringify({ ms: 150, text: 'second' }),
            },
            { id: 'fast', name: 'sleep_echo', arguments: JSON.stringify({ ms: 1, text: 'third' }) },
          ],
        },
        { text: 'done' },
      ],
    });
    const result = await harness.agent.run('Run three echoes.');
    expect(result.reason).toBe('completed');
    const results = harness.events('tool/result').map((event) => event.body as ToolResultBody);
    expect(results.map((body) => body.toolCallId)).toEqual(['slow', 'mid', 'fast']);
    // The fast call finished before the slow one, which was started first: they ran at once (run
    // one after another, the slow one would finish first). No wall-clock bound: a busy machine
    // stretched this run to 1.7 s and failed one.
    const finished = results.map((body) => Number(body.content.split(' at ')[1]));
    expect(finished[0]).toBeGreaterThan(finished[2] as number);
    harness.replayOk();
  });

  it('answers malformed arguments and unknown tools as tool errors and keeps going', async () => {
    harness = await createHarness({
      replies: [
        {
          toolCalls: [
            { id: 'bad', name: 'write', arguments: '{"path": "x.txt", "content": ' },
            { id: 'ghost', name: 'teleport', arguments: '{}' },
          ],
        },
        { text: 'I will fix my call.' },
      ],
    });
    const result = await harness.agent.run('Try it.');
    expect(result.reason).toBe('completed');
    const results = harness.events('tool/result').map((event) => event.body as ToolResultBody);
    expect(results.map((body) => [body.toolCallId, body.isError])).toEqual([
      ['bad', true],
      ['ghost', true],
    ]);
    expect(results[1]?.outcome).toBe('not-found');
    expect(existsSync(join(harness.workspace, 'x.txt'))).toBe(false);
    const second = wireMessages(harness.server.requests[1]!);
    expect(second.filter((message) => message.role === 'tool')).toHaveLength(2);
    harness.replayOk();
  });

  it('retries a 429 and a dropped stream inside the step without re-sending the user message twice', async () => {
    harness = await createHarness({
      replies: [
        {
          error: {
            status: 429,
            body: JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit' } }),
            headers: { 'retry-after': '0' },
          },
        },
        { dropAfterChunks: 2, text: 'This reply will be cut off somewhere in the middle of it.' },
        { text: 'Recovered answer.' },
      ],
    });
    const retries: number[] = [];
    harness.agent.on('retry', ({ nextAttempt }) => retries.push(nextAttempt));
    const result = await harness.agent.run('Say something.');
    expect(result).toMatchObject({ reason: 'completed', text: 'Recovered answer.', steps: 1 });
    expect(retries).toEqual([2, 3]);
    expect(harness.server.requests).toHaveLength(3);
    for (const request of harness.server.requests) {
      const users = wireMessages(request).filter(
        (message) => message.role === 'user' && message.content === 'Say something.',
      );
      expect(users).toHaveLength(1);
    }
    const userEvents = harness
      .events('user/message')
      .filter((event) => (event.body as UserMessageBody).source === 'user');
    expect(userEvents).toHaveLength(1);
    expect(harness.events('llm/retry')).toHaveLength(2);
    expect(
      harness
        .events('llm/retry-started')
        .map((event) => (event.body as { attempt: number }).attempt),
    ).toEqual([2, 3]);
    const attempts = harness
      .events('assistant/attempt')
      .map((event) => event.body as { outcome: string; code?: string });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['error', 'error', 'ok']);
    expect(attempts[0]?.code).toBe('RATE_LIMITED');
    expect(harness.events('assistant/message')).toHaveLength(1);
    const headers = harness
      .events('request/header')
      .map((event) => event.body as RequestHeaderBody);
    expect(headers.map((header) => [header.step, header.attempt])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
    ]);
    expect(new Set(headers.map((header) => header.requestHash)).size).toBe(1);
    harness.replayOk();
  });

  it('fails the turn with a clear error when retries run out, and a later turn works', async () => {
    const unavailable = {
      error: { status: 503, body: JSON.stringify({ error: { message: 'overloaded' } }) },
    };
    harness = await createHarness({
      replies: [unavailable, unavailable, unavailable, unavailable, { text: 'back' }],
    });
    const failed = await harness.agent.run('Hello?');
    expect(failed.reason).toBe('error');
    expect(failed.error?.code).toBe('OVERLOADED');
    expect(failed.error?.message).toMatch(/after 4 attempt/);
    const end = harness.events('turn/end').at(-1)?.body as {
      reason: string;
      error?: { code: string };
    };
    expect(end).toMatchObject({ reason: 'error', error: { code: 'OVERLOADED' } });
    const next = await harness.agent.run('Again?');
    expect(next).toMatchObject({ reason: 'completed', text: 'back' });
    harness.replayOk();
  });

  it('records tool denials so the CLI can tell them apart', async () => {
    harness = await createHarness({
      approval: 'deny-all',
      replies: [
        {
          toolCalls: [
            { id: 'w', name: 'write', arguments: JSON.stringify({ path: 'y.txt', content: 'no' }) },
          ],
        },
        { text: 'ok, not writing' },
      ],
    });
    const result = await harness.agent.run('Write y.txt');
    expect(result).toMatchObject({ reason: 'completed', deniedTools: ['write'] });
    expect(
      harness.events('tool/approval').map((event) => (event.body as { decision: string }).decision),
    ).toEqual(['deny']);
    expect(existsSync(join(harness.workspace, 'y.txt'))).toBe(false);
  });

  it('ends the turn at the step limit', async () => {
    const call = (id: string) => ({
      toolCalls: [{ id, name: 'sleep_echo', arguments: JSON.stringify({ ms: 0, text: id }) }],
    });
    harness = await createHarness({
      maxSteps: 2,
      replies: [call('a'), call('b'), { text: 'never' }],
    });
    const result = await harness.agent.run('Loop.');
    expect(result).toMatchObject({ reason: 'max-steps', steps: 2 });
    expect(harness.server.requests).toHaveLength(2);
    harness.replayOk();
  });

  it('attributes a prompt-cache miss to the change that broke the prefix', async () => {
    harness = await createHarness({
      promptCache: true,
      replies: [{ text: 'one' }, { text: 'two' }, { text: 'three' }],
    });
    await harness.agent.run('First question.');
    await harness.agent.run('Second question.');
    harness.prompt.register({
      id: 'plugin',
      sections: [{ id: 'p', text: 'A plugin rule that changes the prompt.' }],
    });
    await harness.agent.run('Third question.');
    const attempts = harness.events('assistant/attempt').map((event) => event.body as AttemptBody);
    expect(attempts[1]?.prefixCauses).toBeUndefined();
    expect(attempts[1]?.cacheHitTokens).toBeGreaterThan(0);
    expect(attempts[2]?.prefixCauses).toEqual(['system-changed']);
    expect(attempts[2]?.cacheMissTokens).toBeGreaterThan((attempts[1]?.cacheMissTokens ?? 0) * 2);
  });

  it('asks the approve callback under the ask policy and records the answer', async () => {
    const asked: string[] = [];
    harness = await createHarness({
      approval: 'ask',
      replies: [
        {
          toolCalls: [
            {
              id: 'w1',
              name: 'write',
              arguments: JSON.stringify({ path: 'ok.txt', content: 'yes' }),
            },
          ],
        },
        { text: 'written' },
      ],
      approve: async (request) => {
        asked.push(request.toolName);
        return 'once';
      },
    });
    const result = await harness.agent.run('Write ok.txt');
    expect(result).toMatchObject({ reason: 'completed', deniedTools: [] });
    expect(asked).toEqual(['write']);
    expect(
      harness.events('tool/approval').map((event) => (event.body as { decision: string }).decision),
    ).toEqual(['allow']);
    expect(readFileSync(join(harness.workspace, 'ok.txt'), 'utf8')).toBe('yes');
  });
});
