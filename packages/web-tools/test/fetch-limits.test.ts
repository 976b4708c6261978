import type { ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchFailedError } from '../src/index.js';
import { fetchHarness } from './support/fetch-harness.js';
import { startHttpsServer, type TestServer } from './support/servers.js';

let server: TestServer;
const timers = new Set<NodeJS.Timeout>();
let endlessBytesWritten = 0;

function every(response: ServerResponse, ms: number, write: () => boolean): void {
  const timer = setInterval(() => {
    if (response.destroyed || !write()) {
      clearInterval(timer);
      timers.delete(timer);
    }
  }, ms);
  timers.add(timer);
}

beforeAll(async () => {
  server = await startHttpsServer((request, response) => {
    const chunk = Buffer.alloc(16 * 1024, 0x62);
    switch (request.url) {
      case '/endless':
        response.writeHead(200, { 'content-type': 'text/plain' });
        every(response, 1, () => {
          for (let index = 0; index < 8; index += 1) {
            endlessBytesWritten += chunk.length;
            response.write(chunk);
          }
          return true;
        });
        break;
      case '/no-headers':
        break;
      case '/drip':
        response.writeHead(200, { 'content-type': 'text/plain' });
        every(response, 50, () => response.write('.'));
        break;
      case '/stall':
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('first bytes');
        break;
      case '/big-declared':
        response.writeHead(200, {
          'content-type': 'text/plain',
          'content-length': String(10 * 1024 * 1024),
        });
        response.write(chunk);
        break;
      default:
        response.writeHead(404).end();
    }
  });
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  await server.close();
});

describe('fetch limits against slow and endless local servers', () => {
  it('cuts an endless body at maxBytes while streaming and closes the connection', async () => {
    const { provider } = fetchHarness({}, { maxBytes: 256 * 1024, maxContentChars: 1_000_000 });
    const result = await provider.fetch(server.url('/endless'));
    expect(result.truncated).toBe(true);
    expect(result.content.length).toBe(256 * 1024);
    expect(result.bytesRead).toBeLessThan(256 * 1024 + 64 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const writtenAfterCut = endlessBytesWritten;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(endlessBytesWritten).toBe(writtenAfterCut);
  });

  it('cuts a body whose Content-Length exceeds the cap without waiting for the rest', async () => {
    const { provider } = fetchHarness({}, { maxBytes: 8 * 1024, bodyTimeoutMs: 5_000 });
    const started = Date.now();
    const result = await provider.fetch(server.url('/big-declared'));
    expect(result.truncated).toBe(true);
    expect(result.content.length).toBe(8 * 1024);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('gives up when the headers do not arrive within headersTimeoutMs', async () => {
    const { provider } = fetchHarness({}, { headersTimeoutMs: 300 });
    const error = await provider
      .fetch(server.url('/no-headers'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('headers-timeout');
  });

  it('gives up when the body stalls for bodyTimeoutMs', async () => {
    const { provider } = fetchHarness({}, { bodyTimeoutMs: 300 });
    const error = await provider.fetch(server.url('/stall')).catch((caught: unknown) => caught);
    expect((error as FetchFailedError).reason).toBe('body-timeout');
  });

  it('stops a slow drip at the total timeout', async () => {
    const { provider } = fetchHarness({}, { totalTimeoutMs: 500, bodyTimeoutMs: 5_000 });
    const started = Date.now();
    const error = await provider.fetch(server.url('/drip')).catch((caught: unknown) => caught);
    expect((error as FetchFailedError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('gives up when the TLS handshake does not finish within connectTimeoutMs', async () => {
    const silent = createNetServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const { port } = silent.address() as AddressInfo;
    try {
      const { provider } = fetchHarness({}, { connectTimeoutMs: 300 });
      const error = await provider
        .fetch(`https://fixture.test:${port}/`)
        .catch((caught: unknown) => caught);
      expect((error as FetchFailedError).reason).toBe('connect-timeout');
    } finally {
      silent.close();
    }
  });

  it('stops when the caller aborts', async () => {
    const { provider } = fetchHarness();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const error = await provider
      .fetch(server.url('/drip'), { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect((error as FetchFailedError).reason).toBe('aborted');
  });
});
