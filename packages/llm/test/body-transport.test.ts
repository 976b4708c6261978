import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Message, ModelRequest } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleModel } from '../src/index.js';
import { collect } from './helpers.js';

const REPLY =
  'data: {"id":"a","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}\n\n' +
  'data: {"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' +
  'data: [DONE]\n\n';

interface Received {
  raw: string;
  contentLength: string | undefined;
}

/** A server that answers REPLY; `hold` leaves the response open after it. */
async function start(hold = false) {
  const received: Received[] = [];
  const closed: number[] = [];
  let connections = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        raw: Buffer.concat(chunks).toString('utf8'),
        contentLength: request.headers['content-length'],
      });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (hold) response.write(REPLY);
      else response.end(REPLY);
    });
  });
  server.on('connection', (socket) => {
    connections++;
    socket.on('close', () => closed.push(Date.now()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    closed,
    connections: () => connections,
    close,
  };
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

function history(count: number): Message[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: `${i} é 日本 🚀 ${'a'.repeat(1000)}` }
      : { role: 'assistant', content: [{ type: 'text', text: `${i} ${'b'.repeat(1000)}` }] },
  );
}

describe('request bodies and connections', () => {
  it('sends a large, growing and then replaced history as exactly the bytes encodeRequest returns', async () => {
    const server = await start();
    stop = server.close;
    const model = createOpenAICompatibleModel({ baseUrl: server.url, apiKey: 'k' });
    const messages = history(600);
    const requests: ModelRequest[] = [];
    const base = { model: 'm', system: 'sys', tools: [] };
    requests.push({ ...base, messages: messages.slice() });
    messages.push({ role: 'user', content: 'more ✓' });
    requests.push({ ...base, messages: messages.slice() });
    requests.push({
      ...base,
      messages: [{ role: 'user', content: 'summary' }, ...messages.slice(300)],
    });
    requests.push({ ...base, messages: history(3) });
    for (const request of requests) await collect(model, request);
    expect(server.received).toHaveLength(requests.length);
    requests.forEach((request, i) => {
      const encoded = model.encodeRequest!(request);
      expect(server.received[i]?.raw).toBe(encoded);
      expect(server.received[i]?.contentLength).toBe(String(Buffer.byteLength(encoded)));
    });
    expect(Buffer.byteLength(server.received[0]?.raw ?? '')).toBeGreaterThan(256 * 1024);
  });

  it('drops no connection over many streams (a finished body is not aborted)', async () => {
    const server = await start();
    stop = server.close;
    const model = createOpenAICompatibleModel({ baseUrl: server.url, apiKey: 'k' });
    const request: ModelRequest = { model: 'm', system: '', messages: history(2), tools: [] };
    for (let i = 0; i < 5; i++) {
      for await (const event of model.stream(request)) if (event.type === 'finish') break;
    }
    expect(server.received).toHaveLength(5);
    // Aborting an unfinished body would drop its connection; none was dropped.
    expect(server.closed).toEqual([]);
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('finishes at [DONE] when the server holds the body open, and drops the connection later', async () => {
    const server = await start(true);
    stop = server.close;
    const model = createOpenAICompatibleModel({ baseUrl: server.url, apiKey: 'k' });
    const started = Date.now();
    const { finish } = await collect(model, {
      model: 'm',
      system: '',
      messages: history(2),
      tools: [],
    });
    expect(finish.finishReason).toBe('stop');
    const finished = Date.now();
    expect(finished - started).toBeLessThan(900);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // The body was left to end for a grace period, then its connection closed.
    expect(server.closed.length).toBeGreaterThanOrEqual(1);
    expect((server.closed[0] ?? 0) - finished).toBeGreaterThanOrEqual(900);
  });
});
