// One ModelClient conformance suite, run by every adapter against the same scripted replies on
// a real loopback server (OpenAI-compatible wire for DeepSeek and the generic client, Anthropic
// Messages wire for the Anthropic client).
import type { ModelClient, ModelStreamEvent } from '@spine/protocol';
import { textOf, toolCallsOf } from '@spine/protocol';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAnthropicModel,
  createDeepSeekModel,
  createOpenAICompatibleModel,
} from '../src/index.js';
import { collect, collectError, request } from './helpers.js';

const adapters: [string, (baseUrl: string) => ModelClient][] = [
  ['deepseek', (baseUrl) => createDeepSeekModel({ baseUrl, apiKey: 'k', idleTimeoutMs: 300 })],
  [
    'openai-compatible',
    (baseUrl) => createOpenAICompatibleModel({ baseUrl, apiKey: 'k', idleTimeoutMs: 300 }),
  ],
  ['anthropic', (baseUrl) => createAnthropicModel({ baseUrl, apiKey: 'k', idleTimeoutMs: 300 })],
];

describe.each(adapters)('ModelClient conformance: %s', (provider, make) => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function setup(replies: Parameters<typeof createScriptedModelServer>[0]) {
    server = await createScriptedModelServer(replies);
    return { server, model: make(server.baseUrl) };
  }

  it('declares specification version 1 and its provider', () => {
    const model = make('http://127.0.0.1:9');
    expect(model.specificationVersion).toBe(1);
    expect(model.provider).toBe(provider);
  });

  it('yields deltas then exactly one finish whose message matches the deltas', async () => {
    const { model } = await setup({
      replies: [
        {
          reasoning: 'Think.',
          text: 'Answer.',
          toolCalls: [{ id: 'c1', name: 'ls', arguments: '{"path":"."}' }],
          chunkSize: 3,
        },
      ],
    });
    const { events, finish } = await collect(model, request());
    expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
    expect(events.at(-1)).toBe(finish);
    expect(events[0]?.type).toBe('start');
    const text = events
      .map((event: ModelStreamEvent) => (event.type === 'text-delta' ? event.text : ''))
      .join('');
    expect(text).toBe('Answer.');
    expect(textOf(finish.message)).toBe('Answer.');
    expect(finish.message.content[0]).toMatchObject({ type: 'reasoning', text: 'Think.' });
    expect(toolCallsOf(finish.message)).toEqual([
      { type: 'tool-call', id: 'c1', name: 'ls', arguments: '{"path":"."}' },
    ]);
    expect(finish.finishReason).toBe('tool-calls');
    expect(finish.usage?.outputTokens).toBeGreaterThan(0);
  });

  it('sends exactly the bytes encodeRequest returns, deterministically', async () => {
    const { server, model } = await setup({ replies: [{ text: 'ok' }] });
    const req = request({
      tools: [{ name: 'ls', description: 'List files', parameters: { type: 'object' } }],
    });
    const encoded = model.encodeRequest!(req);
    expect(model.encodeRequest!(req)).toBe(encoded);
    await collect(model, req);
    expect(server.requests[0]?.raw).toBe(encoded);
  });

  it('throws classified ModelErrors: 429 with Retry-After, 400 context overflow', async () => {
    const { model } = await setup({
      replies: [
        {
          error: {
            status: 429,
            body: '{"error":{"message":"slow down"}}',
            headers: { 'retry-after': '1' },
          },
        },
        {
          error: {
            status: 400,
            body: '{"error":{"type":"invalid_request_error","message":"prompt is too long: 300000 tokens > 200000 maximum"}}',
          },
        },
      ],
    });
    expect((await collectError(model, request())).error).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 1000,
      provider,
    });
    expect((await collectError(model, request())).error).toMatchObject({
      code: 'CONTEXT_OVERFLOW',
      retryable: false,
    });
  });

  it('reports a dropped connection as STREAM_BROKEN and a stall as STREAM_IDLE', async () => {
    const { model } = await setup({
      replies: [{ dropAfterChunks: 2 }, { stallAfterChunks: 1, keepAliveEveryMs: 30 }],
    });
    expect((await collectError(model, request())).error).toMatchObject({
      code: 'STREAM_BROKEN',
      retryable: true,
    });
    expect((await collectError(model, request())).error).toMatchObject({
      code: 'STREAM_IDLE',
      retryable: true,
    });
  });

  it('fails with ABORTED when the signal is already aborted, without sending anything', async () => {
    const { server, model } = await setup({ replies: [{ text: 'never' }] });
    const controller = new AbortController();
    controller.abort();
    expect((await collectError(model, request(), controller.signal)).error).toMatchObject({
      code: 'ABORTED',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('reports cache reads from the emulated prefix cache on the second step', async () => {
    const { model } = await setup({
      promptCache: true,
      replies: [{ text: 'one' }, { text: 'two' }],
    });
    const system = 'Stable system prompt. '.repeat(100);
    const first = await collect(model, request({ system }));
    const second = await collect(
      model,
      request({
        system,
        messages: [...request().messages, first.finish.message, { role: 'user', content: 'next' }],
      }),
    );
    expect(second.finish.usage?.cacheReadTokens).toBeGreaterThan(0);
    expect((second.finish.usage?.cacheReadTokens ?? 1) % 64).toBe(0);
  });
});
