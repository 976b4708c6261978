import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectAttempt,
  createHttpFetchProvider,
  type HttpFetchOptions,
  UrlRefusedError,
  WebConfigError,
} from '../src/index.js';
import { fetchHarness } from './support/fetch-harness.js';
import {
  FIXTURE_HOST,
  startConnectProxy,
  startHttpsServer,
  type TestServer,
} from './support/servers.js';

// Two HTTPS servers for fixture.test: `direct` is reached without the proxy, `behind` is where the
// CONNECT proxy tunnels every target. A `fixture.test:<port>` NO_PROXY entry sends one port
// direct and leaves the other on the proxy, so a redirect between them has to switch route.
let direct: TestServer;
let behind: TestServer;
let proxy: Awaited<ReturnType<typeof startConnectProxy>>;

function serve(name: string, other: () => TestServer) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    if (request.url === '/hop') {
      response.writeHead(302, { location: other().url('/final') }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`${name} ${request.url}`);
  };
}

beforeAll(async () => {
  direct = await startHttpsServer(serve('direct', () => behind));
  behind = await startHttpsServer(serve('behind', () => direct));
  proxy = await startConnectProxy(behind.port);
});

afterAll(async () => {
  await proxy.close();
  await direct.close();
  await behind.close();
});

const route = (connects: ConnectAttempt[]): string[] =>
  connects.map((attempt) => `${attempt.viaProxy ? 'proxy' : 'direct'} ${attempt.port}`);

describe('NO_PROXY with an HTTPS proxy', () => {
  it('fetches a NO_PROXY host directly: the proxy sees no CONNECT', async () => {
    for (const noProxy of ['other.example, fixture.test', '.test', `FIXTURE.TEST:${direct.port}`]) {
      proxy.targets.length = 0;
      const env = { HTTPS_PROXY: proxy.url, NO_PROXY: noProxy };
      const { provider, connects } = fetchHarness({}, { useEnvProxy: true, env });
      expect((await provider.fetch(direct.url('/page'))).content).toBe('direct /page');
      expect(proxy.targets).toEqual([]);
      expect(connects).toEqual([
        { hostname: FIXTURE_HOST, address: '127.0.0.1', port: direct.port, viaProxy: false },
      ]);
    }
  });

  it('sends a host that matches no entry through the proxy, which sees the CONNECT', async () => {
    proxy.targets.length = 0;
    const env = {
      https_proxy: proxy.url,
      no_proxy: `other.example,10.0.0.0/8,fixture.test:${direct.port}`,
    };
    const { provider, connects, lookups } = fetchHarness({}, { useEnvProxy: true, env });
    expect((await provider.fetch(behind.url('/page'))).content).toBe('behind /page');
    expect(proxy.targets).toEqual([`${FIXTURE_HOST}:${behind.port}`]);
    expect(route(connects)).toEqual([`proxy ${behind.port}`]);
    expect(lookups).toEqual([]);
  });

  it('switches route on a redirect from a bypassed host to a proxied one, and back', async () => {
    const noProxy = [`${FIXTURE_HOST}:${direct.port}`];
    proxy.targets.length = 0;
    const out = fetchHarness({}, { proxy: proxy.url, noProxy });
    const result = await out.provider.fetch(direct.url('/hop'));
    expect(result.content).toBe('behind /final');
    expect(result.finalUrl).toBe(behind.url('/final'));
    expect(route(out.connects)).toEqual([`direct ${direct.port}`, `proxy ${behind.port}`]);
    expect(proxy.targets).toEqual([`${FIXTURE_HOST}:${behind.port}`]);

    proxy.targets.length = 0;
    const back = fetchHarness({}, { proxy: proxy.url, noProxy });
    expect((await back.provider.fetch(behind.url('/hop'))).content).toBe('direct /final');
    expect(route(back.connects)).toEqual([`proxy ${behind.port}`, `direct ${direct.port}`]);
    expect(proxy.targets).toEqual([`${FIXTURE_HOST}:${behind.port}`]);
  });

  it('applies the full address policy to a bypassed host: resolved, checked, refused', async () => {
    for (const options of [
      { proxy: proxy.url, noProxy: ['innocent.example'] },
      { useEnvProxy: true, env: { HTTPS_PROXY: proxy.url, NO_PROXY: '*' } },
    ]) {
      proxy.targets.length = 0;
      const { provider, lookups, connects } = fetchHarness(
        { 'innocent.example': ['93.184.216.34', '10.0.0.1'] },
        options,
      );
      const error = await provider
        .fetch('https://innocent.example/')
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UrlRefusedError);
      expect((error as UrlRefusedError).reason).toBe('private');
      expect(lookups).toEqual(['innocent.example']);
      expect(connects).toEqual([]);
      expect(proxy.targets).toEqual([]);
    }
  });

  it('still lets the proxy resolve a host that is not bypassed (today’s behaviour)', async () => {
    proxy.targets.length = 0;
    const { provider, lookups } = fetchHarness(
      { 'innocent.example': ['10.0.0.1'] },
      { proxy: proxy.url, noProxy: ['other.example'], connectTimeoutMs: 2_000 },
    );
    // The proxy tunnels to the fixture server, whose certificate does not name innocent.example.
    await provider.fetch('https://innocent.example/').catch(() => undefined);
    expect(lookups).toEqual([]);
    expect(proxy.targets).toEqual(['innocent.example:443']);
  });

  it('pins a bypassed host to its checked address, trusted ranges included', async () => {
    const attempts: ConnectAttempt[] = [];
    const { provider } = fetchHarness(
      { 'public.example': ['93.184.216.34'], 'corp.example': ['198.18.0.7'] },
      {
        proxy: proxy.url,
        noProxy: ['public.example', '.corp.example'],
        trustedRanges: ['198.18.0.0/15'],
        onConnect: (attempt) => {
          attempts.push(attempt);
          throw new Error('stop before the socket');
        },
      },
    );
    await provider.fetch('https://public.example/').catch(() => undefined);
    await provider.fetch('https://corp.example/').catch(() => undefined);
    expect(attempts).toEqual([
      { hostname: 'public.example', address: '93.184.216.34', port: 443, viaProxy: false },
      { hostname: 'corp.example', address: '198.18.0.7', port: 443, viaProxy: false },
    ]);
  });
});

describe('NO_PROXY configuration', () => {
  it('refuses a noProxy option with an invalid entry, naming it', () => {
    const create = () =>
      createHttpFetchProvider({
        proxy: 'http://proxy.example:3128',
        noProxy: ['ok.example', 'a..b'],
      });
    expect(create).toThrow(WebConfigError);
    expect(create).toThrow(/"a\.\.b"/);
  });

  it('ignores junk entries in NO_PROXY from the environment and keeps the good ones', async () => {
    proxy.targets.length = 0;
    const env = { HTTPS_PROXY: proxy.url, NO_PROXY: 'a..b, 10.0.0.0/99, fixture.test' };
    const { provider } = fetchHarness({}, { useEnvProxy: true, env });
    expect(provider.availability()).toEqual({ available: true });
    await provider.fetch(direct.url('/page'));
    expect(proxy.targets).toEqual([]);
  });

  it('reads NO_PROXY before no_proxy, and the noProxy option before both', async () => {
    const cases: [HttpFetchOptions, boolean][] = [
      [{ env: { HTTPS_PROXY: proxy.url, NO_PROXY: 'fixture.test', no_proxy: 'x.example' } }, true],
      [{ env: { HTTPS_PROXY: proxy.url, NO_PROXY: 'x.example', no_proxy: 'fixture.test' } }, false],
      [{ env: { HTTPS_PROXY: proxy.url, no_proxy: 'fixture.test' } }, true],
      [{ env: { HTTPS_PROXY: proxy.url, NO_PROXY: '*' }, noProxy: ['x.example'] }, false],
      [{ env: { HTTPS_PROXY: proxy.url, NO_PROXY: '*' }, noProxy: [] }, false],
      [{ env: { NO_PROXY: '*' }, proxy: proxy.url, useEnvProxy: false }, false],
    ];
    for (const [options, bypassed] of cases) {
      proxy.targets.length = 0;
      const { provider, connects } = fetchHarness({}, { useEnvProxy: true, ...options });
      await provider.fetch(direct.url('/page')).catch(() => undefined);
      expect(connects.map((attempt) => attempt.viaProxy)).toEqual([!bypassed]);
    }
  });
});
