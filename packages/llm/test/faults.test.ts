import type { ModelError } from '@spine/protocol';
import { toolCallsOf } from '@spine/protocol';
import {
  createScriptedModelServer,
  sseFrame,
  startSseServer,
  writeSseHead,
} from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeepSeekModel, createOpenAICompatibleModel } from '../src/index.js';
import { collect, collectError, request, textDeltas } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function scripted(...replies: Parameters<typeof createScriptedModelServer>[0][]) {
  const server = await createScriptedModelServer(replies[0]);
  cleanups.push(() => server.close());
  return server;
}

function deepseek(baseUrl: string, extra: Parameters<typeof createDeepSeekModel>[0] = {}) {
  return createDeepSeekModel({ baseUrl, apiKey: 'sk-test', ...extra });
}

describe('fault injection (OpenAI-compatible wire)', () => {
  it('classifies 429 with Retry-After as RATE_LIMITED and keeps the delay', async () => {
    const server = await scripted({
      replies: [
        {
          error: {
            status: 429,
            body: '{"error":{"message":"Too fast"}}',
            headers: { 'retry-after': '3' },
          },
        },
      ],
    });
    const { error } = await collectError(deepseek(server.baseUrl), request());
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      retryAfterMs: 3000,
      status: 429,
    });
  });

  it('classifies 500 as SERVER_ERROR and 503 as OVERLOADED, both retryable', async () => {
    const server = await scripted({
      replies: [
        { error: { status: 500, body: '{"error":{"message":"boom"}}' } },
        { error: { status: 503, body: '{"error":{"message":"Server overloaded"}}' } },
      ],
    });
    const model = deepseek(server.baseUrl);
    expect((await collectError(model, request())).error).toMatchObject({
      code: 'SERVER_ERROR',
      retryable: true,
    });
    expect((await collectError(model, request())).error).toMatchObject({
      code: 'OVERLOADED',
      retryable: true,
    });
  });

  it('classifies DeepSeek context overflow as CONTEXT_OVERFLOW, not retryable', async () => {
    const message =
      "This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion).";
    const server = await scripted({
      replies: [
        {
          error: {
            status: 400,
            body: JSON.stringify({ error: { message, type: 'invalid_request_error' } }),
          },
        },
      ],
    });
    const { error } = await collectError(deepseek(server.baseUrl), request());
    expect(error).toMatchObject({ code: 'CONTEXT_OVERFLOW', retryable: false, status: 400 });
  });

  it('classifies 401 as AUTH_FAILED and names the variable to set', async () => {
    const server = await scripted({
      replies: [{ error: { status: 401, body: '{"error":{"message":"Authentication Fails"}}' } }],
    });
    const { error } = await collectError(deepseek(server.baseUrl), request());
    expect(error).toMatchObject({ code: 'AUTH_FAILED', retryable: false });
    expect((error as ModelError).message).toContain('DEEPSEEK_API_KEY');
  });

  it('fails with AUTH_FAILED before any request when no key is configured', async () => {
    const server = await scripted({ replies: [{ text: 'never' }] });
    const model = createDeepSeekModel({
      baseUrl: server.baseUrl,
      apiKeyEnv: 'SPINE_TEST_UNSET_KEY',
    });
    const { error } = await collectError(model, request());
    expect(error).toMatchObject({ code: 'AUTH_FAILED' });
    expect((error as Error).message).toContain('SPINE_TEST_UNSET_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('reports STREAM_BROKEN when the connection drops after N chunks, after yielding them', async () => {
    const server = await scripted({
      replies: [{ dropAfterChunks: 3, text: 'abcdefgh'.repeat(10) }],
    });
    const { error, events } = await collectError(deepseek(server.baseUrl), request());
    expect(error).toMatchObject({ code: 'STREAM_BROKEN', retryable: true });
    expect(textDeltas(events)).toBe('abcdefghabcdefgh');
  });

  it('reports STREAM_IDLE on a stalled stream even while keep-alive comments keep coming', async () => {
    const server = await scripted({ replies: [{ stallAfterChunks: 2, keepAliveEveryMs: 40 }] });
    const started = Date.now();
    const { error } = await collectError(
      deepseek(server.baseUrl, { idleTimeoutMs: 300 }),
      request(),
    );
    expect(error).toMatchObject({ code: 'STREAM_IDLE', retryable: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('waits through keep-alives while the answer is queued, when they fit in the idle window', async () => {
    const server = await scripted({
      replies: [{ keepAlives: 3, delayMs: 30, text: 'late but fine' }],
    });
    const { finish } = await collect(deepseek(server.baseUrl, { idleTimeoutMs: 2000 }), request());
    expect(finish.message.content).toEqual([{ type: 'text', text: 'late but fine' }]);
  });

  it('does not count a slow consumer as an idle server', async () => {
    const server = await scripted({
      replies: [{ text: 'slow reader', chunkSize: 4, delayMs: 20 }],
    });
    const events: string[] = [];
    for await (const event of deepseek(server.baseUrl, { idleTimeoutMs: 150 }).stream(request())) {
      events.push(event.type);
      if (event.type === 'text-delta') await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(events.at(-1)).toBe('finish');
  });

  it('stops at the total ceiling with REQUEST_TIMEOUT', async () => {
    const server = await scripted({
      replies: [{ text: 'x'.repeat(200), chunkSize: 1, delayMs: 20 }],
    });
    const { error } = await collectError(
      deepseek(server.baseUrl, { idleTimeoutMs: 5000, totalTimeoutMs: 250 }),
      request(),
    );
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', retryable: true });
  });

  it('aborts with ABORTED when the caller signal fires mid-stream', async () => {
    const server = await scripted({
      replies: [{ text: 'y'.repeat(400), chunkSize: 1, delayMs: 5 }],
    });
    const controller = new AbortController();
    const events: unknown[] = [];
    let caught: unknown;
    try {
      for await (const event of deepseek(server.baseUrl).stream(request(), {
        signal: controller.signal,
      })) {
        events.push(event);
        if (events.length === 5) controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'ABORTED', retryable: false });
  });

  it('classifies a refused connection as NETWORK_ERROR', async () => {
    const server = await scripted({ replies: [] });
    const url = server.baseUrl;
    await server.close();
    cleanups.pop();
    const { error } = await collectError(deepseek(url), request());
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', retryable: true });
  });

  it('breaks the attempt (retryable STREAM_BROKEN) on a data line that is not JSON, after handing on what came before', async () => {
    const server = await startSseServer((_request, response) => {
      writeSseHead(response);
      response.write(sseFrame('{"id":"a","choices":[{"index":0,"delta":{"content":"Hel"}}]}'));
      response.write(sseFrame('{"id":"a","choices":[{"index":0,"delta":{"content":'));
      response.write(
        sseFrame(
          '{"id":"a","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}',
        ),
      );
      response.end(sseFrame('[DONE]'));
    });
    cleanups.push(() => server.close());
    const { error, events } = await collectError(deepseek(server.baseUrl), request());
    expect(error).toMatchObject({ code: 'STREAM_BROKEN', retryable: true });
    expect((error as ModelError).message).toContain(
      'sent a data line that is not JSON ("{\\"id\\":\\"a\\",',
    );
    expect(textDeltas(events)).toBe('Hel');
    expect(events.some((event) => event.type === 'finish')).toBe(false);
  });

  it('keeps a warning for an unknown finish_reason and still finishes', async () => {
    const server = await startSseServer((_request, response) => {
      writeSseHead(response);
      response.write(sseFrame('{"id":"a","choices":[{"index":0,"delta":{"content":"Hel"}}]}'));
      response.write(
        sseFrame(
          '{"id":"a","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"weird"}]}',
        ),
      );
      response.end(sseFrame('[DONE]'));
    });
    cleanups.push(() => server.close());
    const { finish } = await collect(deepseek(server.baseUrl), request());
    expect(finish.message.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(finish.finishReason).toBe('other');
    expect(finish.rawFinishReason).toBe('weird');
    expect(finish.warnings?.join('\n')).toMatch(/unknown finish_reason "weird"/);
  });

  it('treats an error payload inside a 200 stream as a classified error (llama.cpp overflow)', async () => {
    const server = await startSseServer((_request, response) => {
      writeSseHead(response);
      response.end(
        sseFrame(
          '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}',
        ),
      );
    });
    cleanups.push(() => server.close());
    const { error } = await collectError(deepseek(server.baseUrl), request());
    expect(error).toMatchObject({ code: 'CONTEXT_OVERFLOW' });
  });

  it('keeps a complete answer when the connection drops after the finish reason, with a warning', async () => {
    const server = await startSseServer(async (_request, response) => {
      writeSseHead(response);
      response.write(
        sseFrame(
          '{"id":"a","choices":[{"index":0,"delta":{"content":"done"},"finish_reason":null}]}',
        ),
      );
      response.write(
        sseFrame('{"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      response.socket?.destroy();
    });
    cleanups.push(() => server.close());
    const { finish } = await collect(deepseek(server.baseUrl), request());
    expect(finish.message.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(finish.finishReason).toBe('stop');
    expect(finish.usage).toBeUndefined();
    expect(finish.warnings?.join(' ')).toContain('usage may be missing');
  });

  it('reports STREAM_BROKEN when the stream ends cleanly but without finish_reason or [DONE]', async () => {
    const server = await startSseServer((_request, response) => {
      writeSseHead(response);
      response.end(sseFrame('{"id":"a","choices":[{"index":0,"delta":{"content":"cut"}}]}'));
    });
    cleanups.push(() => server.close());
    expect((await collectError(deepseek(server.baseUrl), request())).error).toMatchObject({
      code: 'STREAM_BROKEN',
    });
  });

  it('treats DeepSeek insufficient_system_resource as a retryable OVERLOADED failure', async () => {
    const server = await scripted({
      replies: [{ text: 'half', finishReason: 'insufficient_system_resource' }],
    });
    expect((await collectError(deepseek(server.baseUrl), request())).error).toMatchObject({
      code: 'OVERLOADED',
      retryable: true,
    });
  });

  it('carries huge tool-call arguments intact', async () => {
    const big = JSON.stringify({ content: 'z'.repeat(1_000_000) });
    const server = await scripted({
      replies: [{ toolCalls: [{ name: 'write', arguments: big }], chunkSize: 4096 }],
    });
    const { finish } = await collect(deepseek(server.baseUrl), request());
    expect(toolCallsOf(finish.message)[0]?.arguments).toBe(big);
  });

  it('keeps several parallel tool calls in order, invalid JSON arguments included', async () => {
    const server = await scripted({
      replies: [
        {
          toolCalls: [
            { id: 'c1', name: 'read', arguments: '{"path":"a"}' },
            { id: 'c2', name: 'read', arguments: '{"path":"b"}' },
            { id: 'c3', name: 'grep', arguments: '{"pattern": oops' },
          ],
          chunkSize: 3,
        },
      ],
    });
    const { finish, events } = await collect(deepseek(server.baseUrl), request());
    expect(toolCallsOf(finish.message).map((call) => [call.id, call.arguments])).toEqual([
      ['c1', '{"path":"a"}'],
      ['c2', '{"path":"b"}'],
      ['c3', '{"pattern": oops'],
    ]);
    expect(
      events.filter((event) => event.type === 'tool-call-start').map((event) => event.index),
    ).toEqual([0, 1, 2]);
    expect(finish.finishReason).toBe('tool-calls');
  });

  it('resends reasoning with tool calls on the next DeepSeek request (reasoning plus tool calls)', async () => {
    const server = await scripted({
      replies: [
        {
          reasoning: 'Need the weather.',
          toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"SF"}' }],
        },
        { reasoning: 'Got it.', text: 'Sunny.' },
      ],
    });
    const model = deepseek(server.baseUrl);
    const first = await collect(model, request());
    expect(first.finish.message.content.map((part) => part.type)).toEqual([
      'reasoning',
      'tool-call',
    ]);
    const second = request({
      messages: [
        ...request().messages,
        first.finish.message,
        { role: 'tool', toolCallId: 'c1', toolName: 'weather', content: 'sunny' },
      ],
    });
    const done = await collect(model, second);
    const sent = server.requests[1]?.body.messages;
    expect(sent[2]).toMatchObject({
      role: 'assistant',
      reasoning_content: 'Need the weather.',
      content: null,
    });
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'sunny' });
    expect(done.finish.message.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
  });

  it('falls back to a non-streaming JSON body, asked for or not', async () => {
    const server = await scripted({
      replies: [
        { reasoning: 'r', text: 'whole answer', usage: { promptTokens: 10, completionTokens: 4 } },
      ],
    });
    const model = createOpenAICompatibleModel({
      baseUrl: server.baseUrl,
      apiKey: 'k',
      stream: false,
    });
    const { finish, events } = await collect(model, request());
    expect(server.requests[0]?.body.stream).toBe(false);
    expect(textDeltas(events)).toBe('whole answer');
    expect(finish.message.content).toEqual([
      { type: 'reasoning', text: 'r' },
      { type: 'text', text: 'whole answer' },
    ]);
    expect(finish.usage).toMatchObject({ inputTokens: 10, outputTokens: 4 });

    const jsonServer = await startSseServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        '{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"plain"},"finish_reason":"stop"}]}',
      );
    });
    cleanups.push(() => jsonServer.close());
    const streamed = await collect(deepseek(jsonServer.baseUrl), request());
    expect(streamed.finish.message.content).toEqual([{ type: 'text', text: 'plain' }]);
  });

  it('reports the emulated prefix cache as cache reads across steps', async () => {
    const server = await scripted({
      promptCache: true,
      replies: [{ text: 'one' }, { text: 'two' }],
    });
    const model = deepseek(server.baseUrl);
    const system = 'S'.repeat(2000);
    const first = await collect(model, request({ system }));
    const second = await collect(
      model,
      request({
        system,
        messages: [...request().messages, first.finish.message, { role: 'user', content: 'more' }],
      }),
    );
    expect(first.finish.usage?.cacheReadTokens).toBe(0);
    expect(second.finish.usage?.cacheReadTokens).toBeGreaterThanOrEqual(448);
  });

  it('reports STREAM_IDLE when the server never sends response headers', async () => {
    const server = await startSseServer(() => {
      // accept the request and say nothing
    });
    cleanups.push(() => server.close());
    const { error } = await collectError(
      deepseek(server.baseUrl, { idleTimeoutMs: 200 }),
      request(),
    );
    expect(error).toMatchObject({ code: 'STREAM_IDLE', retryable: true });
  });

  it('parses a non-streaming body preceded by DeepSeek keep-alive blank lines', async () => {
    const server = await startSseServer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('\n\n');
      await new Promise((resolve) => setTimeout(resolve, 20));
      response.end(
        '{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"late"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":5}}',
      );
    });
    cleanups.push(() => server.close());
    const model = createDeepSeekModel({ baseUrl: server.baseUrl, apiKey: 'k', stream: false });
    const { finish } = await collect(model, request());
    expect(finish.message.content).toEqual([{ type: 'text', text: 'late' }]);
    expect(finish.usage).toMatchObject({ inputTokens: 5, outputTokens: 1 });
  });

  it('maps an OpenAI refusal delta to text with finish reason refusal', async () => {
    const server = await startSseServer((_request, response) => {
      writeSseHead(response);
      response.write(
        sseFrame(
          '{"id":"r","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":"I can\'t help with that."}}]}',
        ),
      );
      response.write(
        sseFrame('{"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'),
      );
      response.end(sseFrame('[DONE]'));
    });
    cleanups.push(() => server.close());
    const { finish } = await collect(deepseek(server.baseUrl), request());
    expect(finish.finishReason).toBe('refusal');
    expect(finish.message.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
  });
});
