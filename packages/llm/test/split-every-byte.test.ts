// One answer of each wire format, cut at every byte: the tool call arguments split into two
// fragments at every character, and the response bytes split into two network writes at every
// byte (inside a line, a JSON string, a UTF-8 character). Every cut must give the same message.
import type { ServerResponse } from 'node:http';
import { createAnthropicModel, createOpenAICompatibleModel } from '@spine/llm';
import type { AssistantMessage, ModelClient } from '@spine/protocol';
import { type LoopbackServer, sleep, startSseServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, request } from './helpers.js';

const ARGUMENTS = '{"path":"é😀/a b","n":[1,2],"q":"\\"x\\""}';
const EXPECTED: AssistantMessage = {
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'Think: ü' },
    { type: 'text', text: 'Reading “it”.' },
    { type: 'tool-call', id: 'call_A', name: 'read', arguments: ARGUMENTS },
  ],
};

let pieces: Buffer[] = [];
let server: LoopbackServer;
beforeAll(async () => {
  server = await startSseServer(async (_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) await sleep(1); // its own TCP segment, so the client reads the cut
      response.write(piece);
    }
    response.end();
  });
});
afterAll(() => server.close());

function openAIStream(cut: number): string {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return [
    chunk({ role: 'assistant', reasoning_content: 'Think: ü' }),
    chunk({ content: 'Reading “it”.' }),
    chunk({
      tool_calls: [
        {
          index: 0,
          id: 'call_A',
          type: 'function',
          function: { name: 'read', arguments: ARGUMENTS.slice(0, cut) },
        },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ARGUMENTS.slice(cut) } }] }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');
}

function anthropicStream(cut: number): string {
  const event = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return [
    event('message_start', { message: { id: 'm', content: [], usage: { input_tokens: 3 } } }),
    event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
    event('content_block_delta', {
      index: 0,
      delta: { type: 'thinking_delta', thinking: 'Think: ü' },
    }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', {
      index: 1,
      delta: { type: 'text_delta', text: 'Reading “it”.' },
    }),
    event('content_block_stop', { index: 1 }),
    event('content_block_start', {
      index: 2,
      content_block: { type: 'tool_use', id: 'call_A', name: 'read', input: {} },
    }),
    event('content_block_delta', {
      index: 2,
      delta: { type: 'input_json_delta', partial_json: ARGUMENTS.slice(0, cut) },
    }),
    event('content_block_delta', {
      index: 2,
      delta: { type: 'input_json_delta', partial_json: ARGUMENTS.slice(cut) },
    }),
    event('content_block_stop', { index: 2 }),
    event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
    event('message_stop', {}),
  ].join('');
}

async function everyCut(model: ModelClient, stream: (cut: number) => string): Promise<number> {
  let runs = 0;
  // Arguments split into two fragments at every character.
  for (let cut = 0; cut <= ARGUMENTS.length; cut++) {
    pieces = [Buffer.from(stream(cut), 'utf8')];
    const { finish } = await collect(model, request());
    expect(finish.message, `arguments cut at ${cut}`).toEqual(EXPECTED);
    runs++;
  }
  // The response bytes split into two network writes at every byte.
  const bytes = Buffer.from(stream(7), 'utf8');
  for (let at = 1; at < bytes.length; at++) {
    pieces = [bytes.subarray(0, at), bytes.subarray(at)];
    const { finish } = await collect(model, request());
    expect(finish.message, `bytes cut at ${at}`).toEqual(EXPECTED);
    runs++;
  }
  return runs;
}

describe('an answer cut at every byte', { timeout: 240_000 }, () => {
  it('OpenAI-compatible SSE gives the same message for every cut', async () => {
    const model = createOpenAICompatibleModel({ baseUrl: server.baseUrl, apiKey: 'k' });
    expect(await everyCut(model, openAIStream)).toBeGreaterThan(500);
  });

  it('Anthropic SSE gives the same message for every cut', async () => {
    const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' });
    expect(await everyCut(model, anthropicStream)).toBeGreaterThan(1000);
  });
});
