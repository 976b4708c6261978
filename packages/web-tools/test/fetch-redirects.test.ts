import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchFailedError, UrlRefusedError } from '../src/index.js';
import { fetchHarness } from './support/fetch-harness.js';
import {
  FIXTURE_HOST,
  startConnectProxy,
  startHttpsServer,
  type TestServer,
} from './support/servers.js';

let server: TestServer;
let second: TestServer;

function redirectTo(
  response: import('node:http').ServerResponse,
  status: number,
  location: string,
): void {
  response.writeHead(status, { location, 'content-type': 'text/html' });
  response.end('<p>moved</p>');
}

beforeAll(async () => {
  second = await startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('second origin');
  });
  server = await startHttpsServer((request, response) => {
    const path = request.url ?? '/';
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (chain) {
      const left = Number(chain[1]);
      if (left === 0)
        return void response.writeHead(200, { 'content-type': 'text/plain' }).end('end of chain');
      return redirectTo(response, 302, `/chain/${left - 1}`);
    }
    const targets: Record<string, [number, string]> = {
      '/to-final': [301, server.url('/final')],
      '/relative': [302, 'final'],
      '/see-other': [303, '/final'],
      '/temporary': [307, '/final'],
      '/permanent': [308, '/final'],
      '/to-private-name': [302, 'https://internal.example/admin'],
      '/to-metadata': [302, 'https://169.254.169.254/latest/meta-data/'],
      '/to-loopback-literal': [302, `https://127.0.0.1:${server.port}/final`],
      '/to-hex-literal': [302, 'https://0x7f000001/'],
      '/to-http': [301, `http://${FIXTURE_HOST}:${server.port}/final`],
      '/to-credentials': [302, `https://user:secret@${FIXTURE_HOST}:${server.port}/final`],
      '/to-file': [302, 'file:///etc/passwd'],
      '/to-second-origin': [302, second.url('/')],
      '/to-mapped-v6': [302, 'https://[::ffff:10.0.0.1]/'],
      '/scheme-relative-hex': [302, '//0x7f000001/'],
      '/backslash-host': [302, '\\\\169.254.169.254\\latest'],
    };
    const target = targets[path];
    if (target) return redirectTo(response, target[0], target[1]);
    if (path === '/final')
      return void response.writeHead(200, { 'content-type': 'text/plain' }).end('final page');
    response.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
  });
});

afterAll(async () => {
  await server.close();
  await second.close();
});

describe('redirects are followed by hand and every hop is re-validated', () => {
  it('follows 301, 302, 303, 307 and 308 redirects, relative ones included', async () => {
    const { provider } = fetchHarness();
    for (const path of ['/to-final', '/relative', '/see-other', '/temporary', '/permanent']) {
      const result = await provider.fetch(server.url(path));
      expect(result.content).toBe('final page');
      expect(result.finalUrl).toBe(server.url('/final'));
      expect(result.url).toBe(server.url(path));
    }
  });

  it('follows up to maxRedirects and stops after that', async () => {
    const { provider } = fetchHarness({}, { maxRedirects: 3 });
    expect((await provider.fetch(server.url('/chain/3'))).content).toBe('end of chain');
    const error = await provider.fetch(server.url('/chain/4')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('too-many-redirects');
  });

  it.each([
    ['/to-private-name', 'private'],
    ['/to-metadata', 'link-local'],
    ['/to-loopback-literal', 'loopback'],
    ['/to-hex-literal', 'ip-literal-form'],
    ['/to-http', 'scheme'],
    ['/to-credentials', 'credentials'],
    ['/to-file', 'scheme'],
    ['/to-mapped-v6', 'private'],
    ['/scheme-relative-hex', 'ip-literal-form'],
    ['/backslash-host', 'malformed'],
  ])('refuses a redirect %s (%s) before connecting to its target', async (path, reason) => {
    const { provider, connects, lookups } = fetchHarness({ 'internal.example': ['10.1.2.3'] });
    const error = await provider.fetch(server.url(path)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UrlRefusedError);
    expect((error as UrlRefusedError).reason).toBe(reason);
    expect(connects.map((attempt) => attempt.hostname)).toEqual([FIXTURE_HOST]);
    expect(lookups).toEqual(path === '/to-private-name' ? ['internal.example'] : []);
  });

  it('allows a cross-origin redirect by default and refuses it with sameOriginRedirectsOnly', async () => {
    const open = fetchHarness();
    expect((await open.provider.fetch(server.url('/to-second-origin'))).content).toBe(
      'second origin',
    );
    const strict = fetchHarness({}, { sameOriginRedirectsOnly: true });
    const error = await strict.provider
      .fetch(server.url('/to-second-origin'))
      .catch((caught: unknown) => caught);
    expect((error as UrlRefusedError).reason).toBe('cross-origin-redirect');
    expect(strict.connects).toHaveLength(1);
    expect((await strict.provider.fetch(server.url('/to-final'))).content).toBe('final page');
  });
});

describe('HTTPS proxy mode', () => {
  it('tunnels through the proxy, which resolves the name, and never uses the local resolver', async () => {
    const proxy = await startConnectProxy(server.port);
    try {
      const { provider, lookups, connects } = fetchHarness({}, { proxy: proxy.url });
      const result = await provider.fetch(server.url('/to-final'));
      expect(result.content).toBe('final page');
      expect(proxy.targets).toEqual([
        `${FIXTURE_HOST}:${server.port}`,
        `${FIXTURE_HOST}:${server.port}`,
      ]);
      expect(lookups).toEqual([]);
      expect(connects.every((attempt) => attempt.viaProxy)).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('takes the proxy from HTTPS_PROXY only when useEnvProxy is set', async () => {
    const proxy = await startConnectProxy(server.port);
    try {
      const env = { HTTPS_PROXY: proxy.url };
      const off = fetchHarness({}, { env });
      await off.provider.fetch(server.url('/final'));
      expect(proxy.targets).toEqual([]);
      const on = fetchHarness({}, { env, useEnvProxy: true });
      await on.provider.fetch(server.url('/final'));
      expect(proxy.targets).toEqual([`${FIXTURE_HOST}:${server.port}`]);
      const missing = fetchHarness({}, { env: {}, useEnvProxy: true });
      expect(missing.provider.availability()).toMatchObject({
        available: false,
        reason: expect.stringMatching(/HTTPS_PROXY/),
      });
    } finally {
      await proxy.close();
    }
  });

  it('still applies the URL checks that do not need DNS, before contacting the proxy', async () => {
    const proxy = await startConnectProxy(server.port);
    try {
      const { provider } = fetchHarness({}, { proxy: proxy.url });
      for (const url of [
        'https://10.0.0.1/',
        'https://0x7f000001/',
        'http://example.com/',
        'https://u:p@example.com/',
        'https://localhost/',
        'https://[::1]/',
      ]) {
        await expect(provider.fetch(url)).rejects.toBeInstanceOf(UrlRefusedError);
      }
      const error = await provider
        .fetch(server.url('/to-metadata'))
        .catch((caught: unknown) => caught);
      expect((error as UrlRefusedError).reason).toBe('link-local');
      expect(proxy.targets).toEqual([`${FIXTURE_HOST}:${server.port}`]);
    } finally {
      await proxy.close();
    }
  });
});
