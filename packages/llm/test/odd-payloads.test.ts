// Payloads found by the provider fuzz suite (packages/agent-loop/test/provider-fuzz.test.ts)
// that used to throw a TypeError inside the parser; each is now a warning.
import { createAnthropicModel, createOpenAICompatibleModel } from '@spine/llm';
import { startSseServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { collect, request } from './helpers.js';

async function serve(text: string) {
  return startSseServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(text);
  });
}

describe('odd payloads from a server or proxy', () => {
  it('ignores a null tool call fragment (OpenAI-compatible) with a warning', async () => {
    const server = await serve(
      [
        '{"choices":[{"index":0,"delta":{"tool_calls":[null]}}]}',
        '{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}',
        '[DONE]',
      ]
        .map((line) => `data: ${line}\n\n`)
        .join(''),
    );
    try {
      const model = createOpenAICompatibleModel({ baseUrl: server.baseUrl, apiKey: 'k' });
      const { finish } = await collect(model, request());
      expect(finish.message.content).toEqual([{ type: 'text', text: 'ok' }]);
      expect(finish.warnings?.join(' ')).toMatch(/not an object/);
    } finally {
      await server.close();
    }
  });

  it('ignores an Anthropic event whose data is null with a warning', async () => {
    const server = await serve(
      [
        ['message_start', '{"type":"message_start","message":{"id":"m","content":[]}}'],
        ['odd', 'null'],
        ['message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn"}}'],
        ['message_stop', '{"type":"message_stop"}'],
      ]
        .map(([name, data]) => `event: ${name}\ndata: ${data}\n\n`)
        .join(''),
    );
    try {
      const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' });
      const { finish } = await collect(model, request({ model: 'claude-sonnet-4-5' }));
      expect(finish.finishReason).toBe('stop');
      expect(finish.warnings?.join(' ')).toMatch(/not a JSON object/);
    } finally {
      await server.close();
    }
  });
});
