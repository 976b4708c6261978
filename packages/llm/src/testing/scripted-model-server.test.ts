import { describe, expect, it } from 'vitest';
import { createScriptedModelServer } from './scripted-model-server.js';

async function post(baseUrl: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
    body: JSON.stringify(body),
  });
}

function dataLines(text: string): string[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice(6));
}

describe('createScriptedModelServer', () => {
  it('streams text, reasoning and tool calls in the DeepSeek SSE format and records the request', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          reasoning: 'think',
          text: 'Hello there',
          toolCalls: [{ id: 'call_1', name: 'ls', arguments: '{"path":"."}' }],
          chunkSize: 4,
        },
      ],
    });
    try {
      const response = await post(server.baseUrl, {
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const lines = dataLines(await response.text());
      expect(lines.at(-1)).toBe('[DONE]');
      const chunks = lines.slice(0, -1).map((line) => JSON.parse(line));
      const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
      const reasoning = chunks.map((c) => c.choices[0].delta.reasoning_content ?? '').join('');
      const args = chunks
        .map((c) => c.choices[0].delta.tool_calls?.[0]?.function?.arguments ?? '')
        .join('');
      expect(text).toBe('Hello there');
      expect(reasoning).toBe('think');
      expect(args).toBe('{"path":"."}');
      const last = chunks.at(-1);
      expect(last.choices[0].finish_reason).toBe('tool_calls');
      expect(last.usage.prompt_tokens).toBeGreaterThan(0);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.headers.authorization).toBe('Bearer test');
      expect(server.requests[0]?.body.messages[0].content).toBe('hi');
    } finally {
      await server.close();
    }
  });

  it('reports prefix cache hits in 64-token units when promptCache is on', async () => {
    const server = await createScriptedModelServer({
      promptCache: true,
      replies: [{ text: 'a' }, { text: 'b' }],
    });
    try {
      const system = { role: 'system', content: 'x'.repeat(4000) };
      await (
        await post(server.baseUrl, {
          stream: true,
          messages: [system, { role: 'user', content: 'one' }],
        })
      ).text();
      const second = dataLines(
        await (
          await post(server.baseUrl, {
            stream: true,
            messages: [system, { role: 'user', content: 'two' }],
          })
        ).text(),
      );
      const usage = JSON.parse(second.at(-2) ?? '{}').usage;
      expect(usage.prompt_cache_hit_tokens % 64).toBe(0);
      expect(usage.prompt_cache_hit_tokens).toBe(960);
      expect(usage.prompt_cache_hit_tokens + usage.prompt_cache_miss_tokens).toBe(
        usage.prompt_tokens,
      );
    } finally {
      await server.close();
    }
  });

  it('answers scripted errors, non-streaming requests, GET /models and an empty queue', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          error: {
            status: 429,
            body: '{"error":{"message":"slow down"}}',
            headers: { 'retry-after': '2' },
          },
        },
      ],
    });
    try {
      const limited = await post(server.baseUrl, { stream: true, messages: [] });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('2');
      server.push({ text: 'whole' });
      const whole = (await (
        await post(server.baseUrl, { stream: false, messages: [] })
      ).json()) as {
        choices: { message: { content: string } }[];
      };
      expect(whole.choices[0]?.message.content).toBe('whole');
      const models = (await (await fetch(`${server.baseUrl}/models`)).json()) as {
        data: { id: string }[];
      };
      expect(models.data.map((m) => m.id)).toContain('deepseek-v4-flash');
      const empty = await post(server.baseUrl, { stream: true, messages: [] });
      expect(empty.status).toBe(500);
      expect(await empty.text()).toContain('no reply left');
    } finally {
      await server.close();
    }
  });

  it('drops the connection mid-stream and closes stalled streams on close()', async () => {
    const server = await createScriptedModelServer({
      replies: [{ dropAfterChunks: 2 }, { stallAfterChunks: 1 }],
    });
    const dropped = await post(server.baseUrl, { stream: true, messages: [] });
    await expect(dropped.text()).rejects.toThrow();
    const stalled = await post(server.baseUrl, { stream: true, messages: [] });
    const reader = stalled.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('data: ');
    await server.close();
    await expect(reader.read()).rejects.toThrow();
  });

  it('answers POST /v1/messages in the Anthropic event format with thinking, text and tool_use', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          reasoning: 'hmm',
          text: 'Hi',
          toolCalls: [{ id: 't1', name: 'ls', arguments: '{"p":1}' }],
        },
      ],
    });
    try {
      const response = await fetch(`${server.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'claude',
          stream: true,
          messages: [{ role: 'user', content: 'x' }],
        }),
      });
      const frames = (await response.text()).split('\n\n').filter((frame) => frame !== '');
      const types = frames.map((frame) => frame.split('\n')[0]);
      expect(types[0]).toBe('event: message_start');
      expect(types.at(-1)).toBe('event: message_stop');
      const blocks = frames
        .map((frame) => JSON.parse(frame.split('\n')[1]!.slice(6)))
        .filter((event) => event.type === 'content_block_start')
        .map((event) => event.content_block.type);
      expect(blocks).toEqual(['thinking', 'text', 'tool_use']);
      expect(server.requests[0]?.path).toBe('/v1/messages');
    } finally {
      await server.close();
    }
  });
});
