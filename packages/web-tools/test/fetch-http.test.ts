import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHttpFetchProvider,
  FetchFailedError,
  type HttpFetchOptions,
  UrlRefusedError,
} from '../src/index.js';
import { createHttpFetchProviderWithTestSeam } from '../src/internal.js';
import { fetchHarness } from './support/fetch-harness.js';
import {
  FIXTURE_HOST,
  startHttpsServer,
  type TestServer,
  testCertificate,
} from './support/servers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startHttpsServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/page') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<html><head><title>Fixture page</title></head><body><main><h1>Hello</h1><p>See <a href="/next">next</a>.</p></main></body></html>',
      );
    } else if (path === '/text') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('plain text, *not* converted');
    } else if (path === '/json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"a":[1,2,3]}');
    } else if (path === '/latin1') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    } else if (path === '/cp1252') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        Buffer.concat([
          Buffer.from('<html><head><meta charset="windows-1252"><title>x</title></head><body><p>'),
          Buffer.from([0x93, 0x71, 0x94, 0x20, 0x80]),
          Buffer.from('</p></body></html>'),
        ]),
      );
    } else if (path === '/xhtml') {
      response.writeHead(200, { 'content-type': 'application/xhtml+xml' });
      response.end('<html xmlns="http://www.w3.org/1999/xhtml"><body><h2>X</h2></body></html>');
    } else if (path === '/markdown') {
      response.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      response.end('# Already *markdown*');
    } else if (path === '/binary') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(Buffer.alloc(10_000));
    } else if (path === '/pdf') {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end('%PDF-1.7');
    } else if (path === '/untyped') {
      response.writeHead(200);
      response.end('who knows');
    } else if (path === '/untyped-html') {
      response.writeHead(200);
      response.end('<!DOCTYPE html><html><body><p>sniffed <b>page</b></p></body></html>');
    } else if (path === '/untyped-binary') {
      response.writeHead(200);
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
    } else if (path === '/gzip') {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(gzipSync('compressed body'));
    } else if (path === '/bomb') {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x61)));
    } else if (path === '/weird-encoding') {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'zstd-ish' });
      response.end('x');
    } else if (path === '/missing') {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>Not found</h1>');
    } else if (path === '/long') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('x'.repeat(5000));
    } else {
      response.writeHead(500).end();
    }
  });
});

afterAll(() => server.close());

describe('createHttpFetchProvider against a local HTTPS server', () => {
  it('converts HTML to Markdown and reports the metadata', async () => {
    const { provider, lookups, connects } = fetchHarness();
    const result = await provider.fetch(server.url('/page'));
    expect(result).toMatchObject({
      url: server.url('/page'),
      finalUrl: server.url('/page'),
      status: 200,
      contentType: 'text/html',
      truncated: false,
      provider: 'http',
      title: 'Fixture page',
    });
    expect(result.content).toBe(`# Hello\n\nSee [next](${server.url('/next')}).`);
    expect(result.bytesRead).toBeGreaterThan(50);
    expect(lookups).toEqual([]);
    expect(connects).toEqual([
      { hostname: FIXTURE_HOST, address: '127.0.0.1', port: server.port, viaProxy: false },
    ]);
  });

  it('passes plain text and JSON through unchanged', async () => {
    const { provider } = fetchHarness();
    expect((await provider.fetch(server.url('/text'))).content).toBe('plain text, *not* converted');
    const json = await provider.fetch(server.url('/json'));
    expect(json.content).toBe('{"a":[1,2,3]}');
    expect(json.contentType).toBe('application/json');
  });

  it('decodes the declared charset', async () => {
    const { provider } = fetchHarness();
    expect((await provider.fetch(server.url('/latin1'))).content).toBe('café');
  });

  it('reads a charset declared in a meta tag, XHTML and text/markdown', async () => {
    const { provider } = fetchHarness();
    expect((await provider.fetch(server.url('/cp1252'))).content).toBe('\u201cq\u201d \u20ac');
    expect((await provider.fetch(server.url('/xhtml'))).content).toBe('## X');
    expect((await provider.fetch(server.url('/markdown'))).content).toBe('# Already *markdown*');
  });

  it('refuses other content types with a clear notice and without reading the body', async () => {
    const { provider } = fetchHarness();
    for (const path of ['/binary', '/pdf', '/untyped-binary']) {
      const error = await provider.fetch(server.url(path)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FetchFailedError);
      expect((error as FetchFailedError).reason).toBe('content-type');
      expect((error as Error).message).toMatch(/returns only HTML, text and JSON/);
    }
  });

  it('sniffs a body without Content-Type: HTML and text are read, binary is refused', async () => {
    const { provider } = fetchHarness();
    expect(await provider.fetch(server.url('/untyped'))).toMatchObject({
      content: 'who knows',
      contentType: 'text/plain',
    });
    expect(await provider.fetch(server.url('/untyped-html'))).toMatchObject({
      content: 'sniffed **page**',
      contentType: 'text/html',
    });
  });

  it('decompresses gzip and cuts a compression bomb at the byte cap', async () => {
    const { provider } = fetchHarness({}, { maxBytes: 64 * 1024 });
    expect((await provider.fetch(server.url('/gzip'))).content).toBe('compressed body');
    const bomb = await provider.fetch(server.url('/bomb'));
    expect(bomb.truncated).toBe(true);
    expect(bomb.content.length).toBe(64 * 1024);
    const error = await provider
      .fetch(server.url('/weird-encoding'))
      .catch((caught: unknown) => caught);
    expect((error as FetchFailedError).reason).toBe('content-encoding');
  });

  it('returns error statuses with their body so the model can see them', async () => {
    const { provider } = fetchHarness();
    const result = await provider.fetch(server.url('/missing'));
    expect(result.status).toBe(404);
    expect(result.content).toBe('# Not found');
  });

  it('cuts converted content at maxContentChars and keeps the original length', async () => {
    const { provider } = fetchHarness({}, { maxContentChars: 1000 });
    const result = await provider.fetch(server.url('/long'));
    expect(result.content.length).toBe(1000);
    expect(result.originalLength).toBe(5000);
    expect(result.truncated).toBe(true);
  });

  it('refuses the loopback server without the explicit test seam', async () => {
    const connects: unknown[] = [];
    const provider = createHttpFetchProvider({
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
      onConnect: (attempt) => connects.push(attempt),
    });
    await expect(provider.fetch(server.url('/page'))).rejects.toBeInstanceOf(UrlRefusedError);
    await expect(provider.fetch(`https://127.0.0.1:${server.port}/page`)).rejects.toBeInstanceOf(
      UrlRefusedError,
    );
    expect(connects).toEqual([]);
  });

  it('rejects a test seam that points anywhere but loopback', () => {
    expect(() =>
      createHttpFetchProviderWithTestSeam(
        {},
        { loopbackHost: 'x.test', address: '10.0.0.1', ca: testCertificate().cert },
      ),
    ).toThrow(/loopback/);
    expect(() =>
      createHttpFetchProviderWithTestSeam({}, { loopbackHost: '127.0.0.2', ca: 'x' }),
    ).toThrow(/IP literal/);
  });

  it('ignores a seam smuggled into the public options (it is not one of them)', async () => {
    const connects: unknown[] = [];
    const smuggled = {
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
      onConnect: (attempt: unknown) => connects.push(attempt),
      unsafeTestSeam: { loopbackHost: FIXTURE_HOST, ca: testCertificate().cert },
    } as HttpFetchOptions;
    const provider = createHttpFetchProvider(smuggled);
    await expect(provider.fetch(server.url('/page'))).rejects.toBeInstanceOf(UrlRefusedError);
    expect(connects).toEqual([]);
  });
});
