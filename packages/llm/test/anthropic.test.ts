import type { Message } from '@spine/protocol';
import { textOf, toolCallsOf } from '@spine/protocol';
import { sseFrame, startSseServer, writeSseHead } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../src/index.js';
import { fixture, fixtureLines, frameLines, replayServer } from './fixture-server.js';
import { collect, collectError, request, textDeltas } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function replay(name: string, pieceSize?: number) {
  const server = await replayServer(frameLines(fixtureLines(name), { named: true }), { pieceSize });
  cleanups.push(() => server.close());
  const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'sk-ant-test' });
  return { ...(await collect(model, request({ model: 'claude-sonnet-4-5-20250929' }))), server };
}

type Delta = { type: string; delta?: { type: string; text?: string; partial_json?: string } };

describe('Anthropic client on recorded streams', () => {
  it('streams text, sends the Anthropic headers and prices usage', async () => {
    const { events, finish, server } = await replay('anthropic-text.chunks.txt');
    const expected = fixtureLines('anthropic-text.chunks.txt')
      .map((line) => JSON.parse(line) as Delta)
      .map((event) => (event.delta?.type === 'text_delta' ? event.delta.text : ''))
      .join('');
    expect(textDeltas(events)).toBe(expected);
    expect(finish.finishReason).toBe('stop');
    expect(finish.usage?.costUsd).toBeGreaterThan(0);
    const headers = server.requests[0]?.headers;
    expect(headers?.['x-api-key']).toBe('sk-ant-test');
    expect(headers?.['anthropic-version']).toBe('2023-06-01');
    expect(server.requests[0]?.path).toBe('/v1/messages');
  });

  it('turns a tool_use block without input deltas into "{}"', async () => {
    const { finish } = await replay('anthropic-tool-no-args.chunks.txt');
    expect(toolCallsOf(finish.message)[0]?.arguments).toBe('{}');
    expect(finish.finishReason).toBe('tool-calls');
    expect(textOf(finish.message).length).toBeGreaterThan(0);
  });

  it('joins input_json_delta fragments split mid-string with escaped quotes, across 5-byte writes', async () => {
    const { finish } = await replay('anthropic-issue-11719-quoted-tool-input.chunks.txt', 5);
    const expected = fixtureLines('anthropic-issue-11719-quoted-tool-input.chunks.txt')
      .map((line) => JSON.parse(line) as Delta)
      .map((event) => event.delta?.partial_json ?? '')
      .join('');
    expect(toolCallsOf(finish.message)[0]?.arguments).toBe(expected);
    expect(() => JSON.parse(expected)).not.toThrow();
  });

  it('keeps three parallel tool_use blocks in order', async () => {
    const { finish } = await replay('anthropic-issue-15652-false.chunks.txt');
    const calls = toolCallsOf(finish.message);
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(() => JSON.parse(call.arguments)).not.toThrow();
  });

  it('keeps thinking text (split mid-character across 3-byte writes) with its signature, and a signature-only block', async () => {
    const thinking = await replay('anthropic-clear-thinking.1.chunks.txt', 3);
    const reasoning = thinking.finish.message.content[0];
    expect(reasoning?.type).toBe('reasoning');
    expect(reasoning).toMatchObject({
      text: expect.stringContaining('925'),
      signature: expect.any(String),
    });
    const generic = await replay('anthropic-claude-sonnet-5-reasoning-generic.chunks.txt');
    expect(generic.finish.message.content[0]).toMatchObject({
      type: 'reasoning',
      text: '',
      signature: expect.any(String),
    });
    expect(generic.finish.usage?.reasoningTokens).toBe(62);
  });

  it('keeps a redacted_thinking block and sends it back unchanged', async () => {
    const events = [
      '{"type":"message_start","message":{"id":"msg_r","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}}',
      '{"type":"content_block_stop","index":0}',
      '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
      '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi."}}',
      '{"type":"content_block_stop","index":1}',
      '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}',
      '{"type":"message_stop"}',
    ];
    const server = await replayServer(frameLines(events, { named: true }));
    cleanups.push(() => server.close());
    const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' });
    const { finish } = await collect(model, request({ model: 'claude-sonnet-4-5' }));
    expect(finish.message.content).toEqual([
      { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy3va' },
      { type: 'text', text: 'Hi.' },
    ]);
    const next = JSON.parse(
      model.encodeRequest!(
        request({
          messages: [...request().messages, finish.message, { role: 'user', content: 'more' }],
        }),
      ),
    );
    expect(next.messages[1].content[0]).toEqual({
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va',
    });
  });

  it('maps cache reads and writes to their own buckets and lets message_delta totals win', async () => {
    const read = await replay('anthropic-issue-5942-cache-read.chunks.txt');
    expect(read.finish.usage).toMatchObject({
      inputTokens: 3,
      cacheReadTokens: 18639,
      cacheWriteTokens: 0,
    });
    expect(read.finish.finishReason).toBe('length');
    const write = await replay('anthropic-issue-5942-cache-write.chunks.txt');
    expect(write.finish.usage?.cacheWriteTokens).toBe(18639);
    const delta = await replay('anthropic-message-delta-input-tokens.chunks.txt');
    expect(delta.finish.usage?.inputTokens).toBe(61);
  });

  it('classifies an HTTP error body and an in-stream overloaded error', async () => {
    const http = await replayServer(fixture('anthropic-issue-17366-error.json'), { status: 400 });
    cleanups.push(() => http.close());
    const model = createAnthropicModel({ baseUrl: http.baseUrl, apiKey: 'k' });
    const { error } = await collectError(model, request({ model: 'claude-sonnet-4-5' }));
    expect(error).toMatchObject({
      code: 'INVALID_REQUEST',
      retryable: false,
      requestId: 'req_011Cd65WVh8Zrvno3NunpJ73',
    });

    const overloaded = await startSseServer((_request, response) => {
      writeSseHead(response);
      response.write(sseFrame(fixtureLines('anthropic-text.chunks.txt')[0]!, 'message_start'));
      response.end(
        sseFrame(
          '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
          'error',
        ),
      );
    });
    cleanups.push(() => overloaded.close());
    const second = await collectError(
      createAnthropicModel({ baseUrl: overloaded.baseUrl, apiKey: 'k' }),
      request({ model: 'claude-sonnet-4-5' }),
    );
    expect(second.error).toMatchObject({ code: 'OVERLOADED', retryable: true });
  });

  it('classifies "prompt is too long" as CONTEXT_OVERFLOW', async () => {
    const body =
      '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}';
    const server = await replayServer(body, { status: 400 });
    cleanups.push(() => server.close());
    const { error } = await collectError(
      createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' }),
      request(),
    );
    expect(error).toMatchObject({ code: 'CONTEXT_OVERFLOW' });
  });

  it('encodes history with tool results merged into one user turn, signed thinking resent, breakpoints on the prefix', () => {
    const model = createAnthropicModel({ apiKey: 'k' });
    const messages: Message[] = [
      { role: 'user', content: 'List and read.' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'plan', signature: 'sig' },
          { type: 'reasoning', text: 'unsigned from another provider' },
          { type: 'tool-call', id: 't1', name: 'ls', arguments: '{"path":"."}' },
          { type: 'tool-call', id: 't2', name: 'cat', arguments: 'not json' },
        ],
      },
      { role: 'tool', toolCallId: 't1', toolName: 'ls', content: 'a.txt' },
      { role: 'tool', toolCallId: 't2', toolName: 'cat', content: 'bad args', isError: true },
    ];
    const tools = [{ name: 'ls', description: 'List', parameters: { type: 'object' } }];
    const body = JSON.parse(
      model.encodeRequest!(
        request({ model: 'claude-sonnet-4-5', messages, tools, toolChoice: 'required' }),
      ),
    );
    expect(body.max_tokens).toBe(32000);
    expect(body.system).toEqual([
      { type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools[0]).toEqual({
      name: 'ls',
      description: 'List',
      input_schema: { type: 'object' },
      cache_control: { type: 'ephemeral' },
    });
    expect(body.tool_choice).toEqual({ type: 'any' });
    expect(body.messages).toHaveLength(3);
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'List and read.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'plan', signature: 'sig' },
      { type: 'tool_use', id: 't1', name: 'ls', input: { path: '.' } },
      { type: 'tool_use', id: 't2', name: 'cat', input: { invalid_arguments: 'not json' } },
    ]);
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'a.txt' },
      {
        type: 'tool_result',
        tool_use_id: 't2',
        content: 'bad args',
        is_error: true,
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('encodes a growing history byte-identically whether turns come from the cache or not', () => {
    const shared = createAnthropicModel({ apiKey: 'k' });
    let messages: Message[] = [{ role: 'user', content: 'start' }];
    for (let step = 0; step < 6; step++) {
      const req = request({ model: 'claude-sonnet-4-5', messages });
      expect(shared.encodeRequest!(req)).toBe(
        createAnthropicModel({ apiKey: 'k' }).encodeRequest!(req),
      );
      messages = [
        ...messages,
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: `t${step}`, name: 'ls', arguments: '{}' }],
        },
        { role: 'tool', toolCallId: `t${step}`, toolName: 'ls', content: `result ${step}` },
      ];
      if (step % 2 === 1) messages = [...messages, { role: 'user', content: `note ${step}` }];
    }
    const body = JSON.parse(
      shared.encodeRequest!(request({ model: 'claude-sonnet-4-5', messages })),
    );
    const marks = body.messages.flatMap((turn: { content: { cache_control?: unknown }[] }) =>
      turn.content.filter((block) => block.cache_control !== undefined),
    );
    expect(marks).toHaveLength(2);
  });

  it('falls back to a whole JSON message body', async () => {
    const server = await startSseServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          ],
          stop_reason: 'tool_use',
          usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100 },
        }),
      );
    });
    cleanups.push(() => server.close());
    const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k', stream: false });
    const { finish } = await collect(model, request({ model: 'claude-sonnet-4-5' }));
    expect(finish.message.content).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool-call', id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' },
    ]);
    expect(finish.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 100 });
  });

  it('reports STREAM_BROKEN when the stream stops before message_stop', async () => {
    const lines = fixtureLines('anthropic-text.chunks.txt').slice(0, 4);
    const server = await replayServer(frameLines(lines, { named: true }));
    cleanups.push(() => server.close());
    const { error } = await collectError(
      createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' }),
      request(),
    );
    expect(error).toMatchObject({ code: 'STREAM_BROKEN' });
  });
});
