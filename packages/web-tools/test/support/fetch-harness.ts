import type { WebFetchProvider } from '@spine/protocol';
import type {
  ConnectAttempt,
  HttpFetchOptions,
  ResolvedAddress,
  Resolver,
} from '../../src/index.js';
import { createHttpFetchProviderWithTestSeam } from '../../src/internal.js';
import { FIXTURE_HOST, testCertificate } from './servers.js';

/** A fetch provider wired for tests, with everything it tried recorded. */
export interface FetchHarness {
  provider: WebFetchProvider;
  /** Host names the resolver was asked for. */
  lookups: string[];
  /** Connections the provider attempted. */
  connects: ConnectAttempt[];
}

/**
 * Builds the provider with the loopback test seam (fixture.test → 127.0.0.1), a resolver that
 * answers only from `answers` (never the real DNS) and a connect hook that records attempts.
 */
export function fetchHarness(
  answers: Record<string, string[]> = {},
  overrides: HttpFetchOptions = {},
): FetchHarness {
  const lookups: string[] = [];
  const connects: ConnectAttempt[] = [];
  const resolver: Resolver = async (hostname) => {
    lookups.push(hostname);
    const found = answers[hostname];
    if (!found)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map(
      (address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }),
    );
  };
  const provider = createHttpFetchProviderWithTestSeam(
    { resolver, onConnect: (attempt) => connects.push(attempt), ...overrides },
    { loopbackHost: FIXTURE_HOST, ca: testCertificate().cert },
  );
  return { provider, lookups, connects };
}
