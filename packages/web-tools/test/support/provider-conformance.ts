import {
  assertSpecificationVersion,
  SpineError,
  type WebFetchProvider,
  type WebSearchProvider,
} from '@spine/protocol';
import { expect, it } from 'vitest';

/**
 * Conformance checks every `WebSearchProvider` must pass (a candidate for
 * `@spine/protocol/testing`). `configured` must reach a live server; `unconfigured` must lack its
 * key or URL.
 */
export function testWebSearchProvider(
  name: string,
  factories: { configured: () => WebSearchProvider; unconfigured: () => WebSearchProvider },
): void {
  it(`${name}: declares specification version 1, kind search and a stable id`, () => {
    const provider = factories.configured();
    assertSpecificationVersion('WebSearchProvider', provider);
    expect(provider.kind).toBe('search');
    expect(provider.id).toMatch(/^[a-z0-9-]+$/);
    expect(factories.configured().id).toBe(provider.id);
  });

  it(`${name}: returns well-formed results and honours maxResults`, async () => {
    const provider = factories.configured();
    expect(provider.availability()).toEqual({ available: true });
    for (const maxResults of [1, 3, 10]) {
      const results = await provider.search({ query: 'conformance', maxResults });
      const hits = results.filter((result) => result.kind !== 'answer');
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.length).toBeLessThanOrEqual(maxResults);
      for (const result of results) {
        expect(typeof result.title).toBe('string');
        expect(typeof result.url).toBe('string');
        expect(typeof result.snippet).toBe('string');
        if (result.kind !== 'answer') expect(() => new URL(result.url)).not.toThrow();
      }
    }
  });

  it(`${name}: fails with a typed error when cancelled`, async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await factories
      .configured()
      .search({ query: 'q' }, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(SpineError.isInstance(error)).toBe(true);
    expect((error as SpineError).code).toBe('FETCH_FAILED');
  });

  it(`${name}: reports itself unavailable with a reason, and refuses to search`, async () => {
    const provider = factories.unconfigured();
    const state = provider.availability();
    expect(state.available).toBe(false);
    expect(state.available ? '' : state.reason.length).toBeGreaterThan(10);
    const error = await provider.search({ query: 'q' }).catch((caught: unknown) => caught);
    expect((error as SpineError).code).toBe('PROVIDER_UNAVAILABLE');
  });
}

/** Conformance checks every `WebFetchProvider` must pass; `url` must be fetchable, `refused` refused. */
export function testWebFetchProvider(
  name: string,
  factory: () => WebFetchProvider,
  urls: { ok: () => string; refused: string[] },
): void {
  it(`${name}: declares specification version 1, kind fetch and a stable id`, () => {
    const provider = factory();
    assertSpecificationVersion('WebFetchProvider', provider);
    expect(provider.kind).toBe('fetch');
    expect(provider.availability()).toEqual({ available: true });
  });

  it(`${name}: returns every metadata field`, async () => {
    const provider = factory();
    const result = await provider.fetch(urls.ok());
    expect(result).toMatchObject({ url: urls.ok(), provider: provider.id, truncated: false });
    expect(typeof result.finalUrl).toBe('string');
    expect(Number.isInteger(result.status)).toBe(true);
    expect(typeof result.contentType).toBe('string');
    expect(typeof result.content).toBe('string');
    expect(result.bytesRead).toBeGreaterThan(0);
  });

  it(`${name}: refuses with URL_REFUSED`, async () => {
    for (const url of urls.refused) {
      const error = await factory()
        .fetch(url)
        .catch((caught: unknown) => caught);
      expect((error as SpineError).code).toBe('URL_REFUSED');
    }
  });
}
