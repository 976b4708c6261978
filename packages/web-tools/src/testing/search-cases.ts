// The WebSearchProvider conformance cases.
import { SpineError, type WebSearchProvider } from '@spine/protocol';
import { type ConformanceCase, ConformanceFailure, describeError, ensure, show } from './kit.js';

/** What the search kit needs: a provider that reaches a backend, and one that is not configured. */
export interface WebSearchProviderFixture {
  /**
   * Makes a configured provider that reaches a live backend (a loopback server in tests)
   * answering the query `spine conformance` with at least one hit (10 or more let the case see
   * `maxResults` trimming).
   */
  configured(): WebSearchProvider | Promise<WebSearchProvider>;
  /** Makes the same provider without its key or URL, so it must report itself unavailable. */
  unconfigured(): WebSearchProvider | Promise<WebSearchProvider>;
}

async function make(
  factory: () => WebSearchProvider | Promise<WebSearchProvider>,
  what: string,
): Promise<WebSearchProvider> {
  try {
    return await factory();
  } catch (error) {
    throw new ConformanceFailure(`${what}: making the provider failed: it ${describeError(error)}`);
  }
}

/** Awaits `promise` expecting a SpineError with `code`; returns a failure message otherwise. */
export async function expectCode(promise: Promise<unknown>, code: string, what: string) {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    ensure(
      SpineError.isInstance(error),
      `${what}: expected a typed SpineError with code ${code}, but it ${describeError(error)}`,
    );
    ensure(
      error.code === code,
      `${what}: expected code ${code}, got ${error.code} (${error.message})`,
    );
    return;
  }
  throw new ConformanceFailure(
    `${what}: expected a SpineError with code ${code}, but it resolved with ${show(outcome)}`,
  );
}

/** The WebSearchProvider cases, in run order. */
export const webSearchCases: readonly ConformanceCase<WebSearchProviderFixture>[] = [
  {
    name: 'declares specification version 1, kind "search" and a stable id',
    run: async (fixture) => {
      const what = 'identity';
      const provider = await make(fixture.configured, what);
      ensure(
        provider.specificationVersion === 1,
        `${what}: expected specificationVersion 1, got ${show(provider.specificationVersion)}`,
      );
      ensure(
        provider.kind === 'search',
        `${what}: expected kind "search", got ${show(provider.kind)}`,
      );
      ensure(
        typeof provider.id === 'string' && /^[a-z0-9-]+$/.test(provider.id),
        `${what}: expected an id of lower-case letters, digits and dashes, got ${show(provider.id)}`,
      );
      const again = await make(fixture.configured, what);
      ensure(
        again.id === provider.id,
        `${what}: expected the same id from a second provider, got ${show(provider.id)} then ${show(again.id)}`,
      );
    },
  },
  {
    name: 'returns well-formed results and honours maxResults',
    run: async (fixture) => {
      const provider = await make(fixture.configured, 'results');
      const state = provider.availability();
      ensure(
        state.available,
        `results: expected the configured provider available, got ${show(state)}`,
      );
      for (const maxResults of [1, 3, 10]) {
        const what = `results (maxResults ${maxResults})`;
        let results: Awaited<ReturnType<WebSearchProvider['search']>>;
        try {
          results = await provider.search({ query: 'spine conformance', maxResults });
        } catch (error) {
          throw new ConformanceFailure(
            `${what}: expected hits, but search ${describeError(error)}`,
          );
        }
        ensure(Array.isArray(results), `${what}: expected an array, got ${show(results)}`);
        const hits = results.filter((result) => result.kind !== 'answer');
        ensure(
          hits.length > 0 && hits.length <= maxResults,
          `${what}: expected at least 1 and at most ${maxResults} hits, got ${hits.length}`,
        );
        for (const result of results) {
          ensure(
            typeof result.title === 'string' &&
              typeof result.url === 'string' &&
              typeof result.snippet === 'string',
            `${what}: expected string title, url and snippet, got ${show(result)}`,
          );
          if (result.kind !== 'answer') {
            ensure(
              URL.canParse(result.url),
              `${what}: expected an absolute URL, got ${show(result.url)}`,
            );
          }
        }
      }
    },
  },
  {
    name: 'fails with FETCH_FAILED when the signal is already aborted',
    run: async (fixture) => {
      const provider = await make(fixture.configured, 'cancelled search');
      await expectCode(
        provider.search({ query: 'q' }, { signal: AbortSignal.abort() }),
        'FETCH_FAILED',
        'cancelled search',
      );
    },
  },
  {
    name: 'reports itself unavailable with a reason and refuses to search',
    run: async (fixture) => {
      const what = 'unconfigured';
      const provider = await make(fixture.unconfigured, what);
      const state = provider.availability();
      ensure(
        !state.available,
        `${what}: expected availability() to say unavailable, got ${show(state)}`,
      );
      ensure(
        state.reason.length > 10,
        `${what}: expected a reason saying what to configure, got ${show(state.reason)}`,
      );
      await expectCode(provider.search({ query: 'q' }), 'PROVIDER_UNAVAILABLE', what);
    },
  },
];
