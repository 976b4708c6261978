import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isModelError } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleModel } from '../src/index.js';
import { collect, collectError, request, textDeltas } from './helpers.js';

// How the transport reads a response through undici's dispatcher API: events queued while
// the consumer is busy, reading paused and resumed, requests aborted when nobody reads.

type Respond = (response: ServerResponse, request: IncomingMessage) => void;

async function serve(respond: Respond) {
  const closedEarly: boolean[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.on('close', () => closedEarly.push(!res.writableFinished));
      respond(res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}`, closedEarly };
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

function delta(text: string): string {
  return `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
}

const END =
  'data: {"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

describe('the dispatch transport', () => {
  it('delivers every event in order when a burst outruns a slow consumer (reading pauses, then resumes)', async () => {
    const pieces = Array.from({ length: 5000 }, (_, i) => `<${i}>`);
    const server = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(pieces.map(delta).join('') + END);
    });
    const model = createOpenAICompatibleModel({ baseUrl: server.url, apiKey: 'k' });
    const events = [];
    let seen = 0;
    for await (const event of model.stream(request())) {
      events.push(event);
      if (++seen % 250 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(textDeltas(events)).toBe(pieces.join(''));
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('aborts the request when the consumer stops reading before the answer is complete', async () => {
    const server = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(delta('first'));
      const timer = setInterval(() => res.write(': keep-alive\n\n'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const model = createOpenAICompatibleModel({ baseUrl: server.url, apiKey: 'k' });
    for await (const event of model.stream(request())) if (event.type === 'text-delta') break;
    await expect.poll(() => server.closedEarly, { timeout: 2000 }).toEqual([true]);
  });

  it('answers a second request on the same client after an abandoned one', async () => {
    let calls = 0;
    const server = await serve((res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (calls === 1) res.write(delta('never finished'));
      else res.end(delta('second') + END);
    });
    const model = createOpenAICompatibleModel({ baseUrl: server.url, apiKey: 'k' });
    for await (const event of model.stream(request())) if (event.type === 'text-delta') break;
    const { events, finish } = await collect(model, request());
    expect(textDeltas(events)).toBe('second');
    expect(finish.finishReason).toBe('stop');
  });

  it('fails with a ModelError, not a TypeError, for a base URL that does not parse', async () => {
    const model = createOpenAICompatibleModel({ baseUrl: 'http//no-scheme', apiKey: 'k' });
    const { error } = await collectError(model, request());
    expect(isModelError(error)).toBe(true);
  });

  it('stops at once with ABORTED when the signal fires before the response starts', async () => {
    const server = await serve(() => {
      // Never answers: the request waits for its headers.
    });
    const model = createOpenAICompatibleModel({ baseUrl: server.url, apiKey: 'k' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const { error } = await collectError(model, request(), controller.signal);
    expect(isModelError(error) && error.code).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
