import type { WebProvider } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { ProviderAmbiguousError, ProviderUnavailableError, WebConfigError } from './errors.js';
import { createHttpFetchProvider } from './fetch-http.js';
import { createBraveSearchProvider } from './provider-brave.js';
import { createExaSearchProvider } from './provider-exa.js';
import { createSearxngSearchProvider } from './provider-searxng.js';
import { webProvidersFromEnv } from './providers-env.js';
import { createWebRuntime } from './web-runtime.js';

const exa = createExaSearchProvider({ apiKey: 'e' });
const brave = createBraveSearchProvider({ apiKey: 'b' });
const braveWithoutKey = createBraveSearchProvider({ env: {} });
const searxWithoutUrl = createSearxngSearchProvider({ env: {} });
const http = createHttpFetchProvider();

describe('createWebRuntime selection', () => {
  it('uses the configured provider', () => {
    const runtime = createWebRuntime({ providers: [exa, brave, http], search: 'brave' });
    expect(runtime.searchProvider()).toBe(brave);
    expect(runtime.fetchProvider()).toBe(http);
  });

  it('rejects an unknown configured id at once, listing the known ones', () => {
    expect(() => createWebRuntime({ providers: [exa, brave], search: 'google' })).toThrow(
      WebConfigError,
    );
    expect(() => createWebRuntime({ providers: [exa, brave], search: 'google' })).toThrow(
      /known search providers: brave, exa/,
    );
    expect(() => createWebRuntime({ providers: [http], fetch: 'curl' })).toThrow(
      /Unknown fetch provider "curl"/,
    );
  });

  it('reports a configured but unavailable provider with its reason', () => {
    const runtime = createWebRuntime({ providers: [exa, braveWithoutKey], search: 'brave' });
    expect(() => runtime.searchProvider()).toThrow(ProviderUnavailableError);
    expect(() => runtime.searchProvider()).toThrow(/BRAVE_API_KEY/);
  });

  it('uses the only available provider when none is configured', () => {
    const runtime = createWebRuntime({ providers: [braveWithoutKey, exa, searxWithoutUrl, http] });
    expect(runtime.searchProvider().id).toBe('exa');
  });

  it('refuses to guess between several available providers, whatever the load order', () => {
    const orders: WebProvider[][] = [
      [exa, brave],
      [brave, exa],
    ];
    for (const providers of orders) {
      const error = (() => {
        try {
          createWebRuntime({ providers }).searchProvider();
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(ProviderAmbiguousError);
      expect((error as ProviderAmbiguousError).candidates).toEqual(['brave', 'exa']);
      expect((error as Error).message).toBe(
        "Several search providers are available (brave, exa); pick one with { search: '<id>' } in the web configuration",
      );
    }
  });

  it('explains why nothing is available', () => {
    const runtime = createWebRuntime({ providers: [searxWithoutUrl, braveWithoutKey] });
    expect(() => runtime.searchProvider()).toThrow(
      /brave: Brave Search needs an API key: set BRAVE_API_KEY.*searxng: SearXNG needs its URL/,
    );
    expect(() => createWebRuntime({ providers: [] }).fetchProvider()).toThrow(
      /No fetch provider is configured/,
    );
  });

  it('describes the selection without throwing', () => {
    const runtime = createWebRuntime({ providers: [exa, brave, http], fetch: 'http' });
    expect(runtime.describe()).toEqual({
      search: { status: 'error', message: expect.stringContaining('Several search providers') },
      fetch: { status: 'selected', provider: 'http', configured: true },
    });
  });

  it('rejects duplicate ids and unknown specification versions', () => {
    expect(() =>
      createWebRuntime({ providers: [exa, createExaSearchProvider({ apiKey: 'x' })] }),
    ).toThrow(/share the id "exa"/);
    const future = { ...exa, specificationVersion: 2 } as unknown as WebProvider;
    expect(() => createWebRuntime({ providers: [future] })).toThrow(/specificationVersion 2/);
  });
});

describe('webProvidersFromEnv', () => {
  it('builds every provider and lets the environment decide availability', () => {
    const providers = webProvidersFromEnv({ TAVILY_API_KEY: 't', SEARXNG_URL: 'http://searx.lan' });
    expect(providers.map((provider) => `${provider.kind}:${provider.id}`)).toEqual([
      'search:exa',
      'search:brave',
      'search:tavily',
      'search:perplexity',
      'search:searxng',
      'fetch:http',
    ]);
    expect(
      providers
        .filter((provider) => provider.availability().available)
        .map((provider) => provider.id),
    ).toEqual(['tavily', 'searxng', 'http']);
    const runtime = createWebRuntime({ providers, search: 'tavily' });
    expect(runtime.describe().search).toEqual({
      status: 'selected',
      provider: 'tavily',
      configured: true,
    });
  });
});
