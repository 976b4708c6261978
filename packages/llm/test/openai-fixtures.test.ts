import { textOf, toolCallsOf } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { createDeepSeekModel, createOpenAICompatibleModel } from '../src/index.js';
import { fixture, fixtureLines, frameLines, replayServer } from './fixture-server.js';
import { collect, request, textDeltas } from './helpers.js';

type Chunk = {
  choices: { delta: { content?: string | null; reasoning_content?: string | null } }[];
};

function joined(name: string, field: 'content' | 'reasoning_content'): string {
  return fixtureLines(name)
    .map((line) => JSON.parse(line) as Chunk)
    .map((chunk) => chunk.choices[0]?.delta[field] ?? '')
    .join('');
}

async function replay(
  name: string,
  options: Parameters<typeof frameLines>[1] & { pieceSize?: number } = {},
) {
  const server = await replayServer(frameLines(fixtureLines(name), options), {
    pieceSize: options.pieceSize,
  });
  const model = createDeepSeekModel({ baseUrl: server.baseUrl, apiKey: 'sk-test' });
  try {
    return { ...(await collect(model, request())), server };
  } finally {
    await server.close();
  }
}

describe('OpenAI-compatible client on recorded streams', () => {
  it('streams a DeepSeek V4 text answer with usage on the finish chunk and prices it', async () => {
    const { events, finish, server } = await replay('deepseek-text.chunks.txt');
    expect(events[0]).toMatchObject({ type: 'start', model: 'deepseek-v4-flash' });
    expect(textDeltas(events)).toBe(joined('deepseek-text.chunks.txt', 'content'));
    expect(textOf(finish.message)).toBe(joined('deepseek-text.chunks.txt', 'content'));
    expect(finish.finishReason).toBe('stop');
    const usage = finish.usage!;
    expect(usage.inputTokens + usage.cacheReadTokens).toBeGreaterThan(0);
    expect(usage.costUsd).toBeGreaterThan(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
  });

  it('keeps reasoning and text as separate parts and counts reasoning inside output once', async () => {
    const { finish } = await replay('deepseek-reasoning.chunks.txt');
    const [reasoning, text] = finish.message.content;
    expect(reasoning).toEqual({
      type: 'reasoning',
      text: joined('deepseek-reasoning.chunks.txt', 'reasoning_content'),
    });
    expect(text).toEqual({
      type: 'text',
      text: joined('deepseek-reasoning.chunks.txt', 'content'),
    });
    expect(finish.usage).toMatchObject({ outputTokens: 106, reasoningTokens: 88 });
  });

  it('accumulates a tool call streamed in fragments and maps cache hits to cacheReadTokens', async () => {
    const { events, finish } = await replay('deepseek-tool-call.chunks.txt');
    const calls = toolCallsOf(finish.message);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.id).toMatch(/^call_00_/);
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ location: 'San Francisco' });
    expect(finish.finishReason).toBe('tool-calls');
    expect(finish.usage).toEqual({
      inputTokens: 118,
      cacheReadTokens: 256,
      cacheWriteTokens: 0,
      outputTokens: 61,
      reasoningTokens: 17,
      costUsd: expect.any(Number),
    });
    expect(events.filter((event) => event.type === 'tool-call-start')).toHaveLength(1);
  });

  it('gives the same message when frames are split across 7-byte TCP writes with CRLF and keep-alives', async () => {
    const whole = await replay('deepseek-tool-call.chunks.txt');
    const split = await replay('deepseek-tool-call.chunks.txt', {
      pieceSize: 7,
      crlf: true,
      comments: true,
    });
    expect(split.finish.message).toEqual(whole.finish.message);
    expect(split.finish.usage).toEqual(whole.finish.usage);
  });

  it('parses the legacy V3.2 reasoner tool-call stream', async () => {
    const { finish } = await replay('legacy/deepseek-tool-call.chunks.txt');
    expect(finish.message.content[0]?.type).toBe('reasoning');
    expect(toolCallsOf(finish.message)).toHaveLength(1);
    expect(finish.usage?.cacheReadTokens).toBe(320);
  });

  it('reads OpenAI usage from the separate choices:[] chunk and ignores obfuscation padding', async () => {
    const { finish } = await replay('openai-text.chunks.txt');
    expect(finish.finishReason).toBe('stop');
    expect(finish.usage?.outputTokens).toBeGreaterThan(0);
    expect(finish.warnings).toBeUndefined();
  });

  it('counts xAI reasoning tokens that sit outside completion_tokens exactly once', async () => {
    const { finish } = await replay('xai-tool-call.chunks.txt');
    expect(finish.usage).toMatchObject({
      inputTokens: 1,
      cacheReadTokens: 306,
      outputTokens: 253,
      reasoningTokens: 227,
    });
    expect(toolCallsOf(finish.message)).toHaveLength(1);
  });

  it('handles Azure filter-only chunks and Mistral content arrays with thinking parts', async () => {
    const azure = await replay('azure-model-router.1.chunks.txt');
    expect(textOf(azure.finish.message).length).toBeGreaterThan(0);
    expect(azure.finish.usage?.reasoningTokens).toBe(64);
    const mistral = await replay('issue-13703-mistral-thinking.chunks.txt');
    expect(mistral.finish.message.content[0]?.type).toBe('reasoning');
    expect(textOf(mistral.finish.message).length).toBeGreaterThan(0);
  });

  it('renumbers a tool call whose first wire index is 1 (raw .sse framing)', async () => {
    const server = await replayServer(fixture('anthropic-fallback-tool-call.sse'));
    try {
      const model = createOpenAICompatibleModel({ baseUrl: server.baseUrl, allowNoApiKey: true });
      const { events, finish } = await collect(model, request({ model: 'claude-haiku-4-5' }));
      expect(events.find((event) => event.type === 'tool-call-start')).toMatchObject({
        index: 0,
        name: 'read_file',
      });
      expect(JSON.parse(toolCallsOf(finish.message)[0]!.arguments)).toEqual({ path: 'a.txt' });
      expect(server.requests[0]?.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('sends exactly the bytes encodeRequest returns', async () => {
    const server = await replayServer(frameLines(fixtureLines('deepseek-text.chunks.txt')));
    try {
      const model = createDeepSeekModel({ baseUrl: server.baseUrl, apiKey: 'k' });
      const req = request({
        tools: [{ name: 'ls', description: 'List', parameters: { type: 'object' } }],
      });
      await collect(model, req);
      expect(server.requests[0]?.raw).toBe(model.encodeRequest!(req));
      expect(server.requests[0]?.path).toBe('/chat/completions');
    } finally {
      await server.close();
    }
  });
});
