import { describe, expect, it } from 'vitest';
import { FetchFailedError, UrlRefusedError } from '../src/index.js';
import { HOSTILE_CORPUS } from './hostile-corpus.js';
import { fetchHarness } from './support/fetch-harness.js';

/** Options that make any connection attempt throw before a socket exists. */
function forbidConnections(attempts: unknown[]) {
  return {
    onConnect: (attempt: unknown) => {
      attempts.push(attempt);
      throw new Error('a connection was attempted');
    },
  };
}

describe('hostile corpus', () => {
  it('holds at least 60 cases', () => {
    expect(HOSTILE_CORPUS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(HOSTILE_CORPUS.map((entry) => [entry.why, entry] as const))(
    'refuses %s before any connection',
    async (_why, entry) => {
      const attempts: unknown[] = [];
      const { provider, lookups } = fetchHarness(entry.answers ?? {}, {
        ...entry.options,
        ...forbidConnections(attempts),
      });
      const error = await provider.fetch(entry.url).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UrlRefusedError);
      expect((error as UrlRefusedError).code).toBe('URL_REFUSED');
      expect(attempts).toEqual([]);
      expect(lookups.length).toBeLessThanOrEqual(1);
    },
  );
});

// With a proxy configured, a host that NO_PROXY sends direct must get every check a provider
// without a proxy applies. The proxy address is never contacted: routing a case through it would
// call onConnect, which fails the case.
const BYPASS_LISTS = [
  '*',
  '.example, .nip.io, localtest.me, 10.0.0.0/8, 127.0.0.0/8, 169.254.0.0/16, ::1, fd00::/8, 0.0.0.0/0, ::/0',
];

describe.each(BYPASS_LISTS)('hostile corpus with HTTPS_PROXY set and NO_PROXY=%s', (noProxy) => {
  it.each(HOSTILE_CORPUS.map((entry) => [entry.why, entry] as const))(
    'refuses %s before any connection',
    async (_why, entry) => {
      const attempts: unknown[] = [];
      const { provider } = fetchHarness(entry.answers ?? {}, {
        ...entry.options,
        useEnvProxy: true,
        env: { HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: noProxy },
        ...forbidConnections(attempts),
      });
      const error = await provider.fetch(entry.url).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UrlRefusedError);
      expect(attempts).toEqual([]);
    },
  );
});

describe('pinning to the validated address', () => {
  it('resolves once and pins the socket to the checked public address', async () => {
    const attempts: { address?: string }[] = [];
    const { provider, lookups } = fetchHarness(
      { 'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] },
      forbidConnections(attempts),
    );
    const error = await provider
      .fetch('https://public.example/')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(lookups).toEqual(['public.example']);
    expect(attempts).toEqual([
      { hostname: 'public.example', address: '93.184.216.34', port: 443, viaProxy: false },
    ]);
  });

  it('lets an explicitly trusted range through (fake-IP resolvers) and pins to it', async () => {
    const attempts: { address?: string }[] = [];
    const { provider } = fetchHarness(
      { 'proxied.example': ['198.18.0.7'] },
      { trustedRanges: ['198.18.0.0/15'], ...forbidConnections(attempts) },
    );
    await provider.fetch('https://proxied.example/').catch(() => undefined);
    expect(attempts).toEqual([
      { hostname: 'proxied.example', address: '198.18.0.7', port: 443, viaProxy: false },
    ]);
  });
});
