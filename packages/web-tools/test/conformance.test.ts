import type { ServerResponse } from 'node:http';
import type { WebFetchProvider, WebSearchProvider } from '@spine/protocol';
import {
  checkWebFetchProvider,
  checkWebSearchProvider,
  DEFAULT_REFUSED_URLS,
  WEB_FETCH_KIT_PAGE,
  type WebSearchProviderFixture,
  webFetchConformanceCases,
  webSearchConformanceCases,
} from '@spine/web-tools/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBraveSearchProvider,
  createExaSearchProvider,
  createPerplexitySearchProvider,
  createSearxngSearchProvider,
  createTavilySearchProvider,
} from '../src/index.js';
import { fetchHarness } from './support/fetch-harness.js';
import { startHttpServer, startHttpsServer, type TestServer } from './support/servers.js';

let api: TestServer;
let site: TestServer;

/** 25 hits in each API's shape, so maxResults trimming is visible. */
function hits<T>(make: (index: number) => T): T[] {
  return Array.from({ length: 25 }, (_, index) => make(index));
}

function reply(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

beforeAll(async () => {
  site = await startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(WEB_FETCH_KIT_PAGE);
  });
  api = await startHttpServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const url = (index: number) => `https://result${index}.example/`;
    if (path === '/search')
      return reply(response, {
        results: hits((i) => ({ title: `T${i}`, url: url(i), text: 's', content: 's' })),
      });
    if (path === '/res/v1/web/search')
      return reply(response, {
        web: { results: hits((i) => ({ title: `T${i}`, url: url(i), description: 's' })) },
      });
    if (path === '/chat/completions') {
      return reply(response, {
        choices: [{ message: { content: 'answer' } }],
        search_results: hits((i) => ({ title: `T${i}`, url: url(i) })),
      });
    }
    if (path === '/kit-page') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end(WEB_FETCH_KIT_PAGE);
    }
    response.writeHead(404).end();
  });
});

afterAll(async () => {
  await api.close();
  await site.close();
});

// Spine's providers run the published kits of @spine/web-tools/testing, one test per case.
const base = () => api.url('');
const searchProviders: [string, WebSearchProviderFixture][] = [
  [
    'exa',
    {
      configured: () => createExaSearchProvider({ apiKey: 'k', baseUrl: base() }),
      unconfigured: () => createExaSearchProvider({ env: {} }),
    },
  ],
  [
    'brave',
    {
      configured: () => createBraveSearchProvider({ apiKey: 'k', baseUrl: base() }),
      unconfigured: () => createBraveSearchProvider({ env: {} }),
    },
  ],
  [
    'tavily',
    {
      configured: () => createTavilySearchProvider({ apiKey: 'k', baseUrl: base() }),
      unconfigured: () => createTavilySearchProvider({ env: {} }),
    },
  ],
  [
    'perplexity',
    {
      configured: () => createPerplexitySearchProvider({ apiKey: 'k', baseUrl: base() }),
      unconfigured: () => createPerplexitySearchProvider({ env: {} }),
    },
  ],
  [
    'searxng',
    {
      configured: (): WebSearchProvider => createSearxngSearchProvider({ baseUrl: base() }),
      unconfigured: () => createSearxngSearchProvider({ env: {} }),
    },
  ],
];

/**
 * Broken providers over the same servers: the search one has a bad id, ignores maxResults, turns
 * failures into empty results and claims to be available without a key; the fetch one is a bare
 * `fetch()` with no URL policy and no HTML conversion.
 */
function brokenSearch(configured: boolean): WebSearchProvider {
  const inner = createExaSearchProvider({ apiKey: 'k', baseUrl: base() });
  return {
    specificationVersion: 1,
    kind: 'search',
    id: 'Broken Search',
    availability: () => ({ available: true }),
    search: async (query, options) => {
      if (!configured) return [];
      return inner.search({ query: query.query, maxResults: 25 }, options).catch(() => []);
    },
  };
}

const brokenFetch: WebFetchProvider = {
  specificationVersion: 1,
  kind: 'fetch',
  id: 'naive',
  availability: () => ({ available: true }),
  async fetch(url, options) {
    const response = await fetch(url, options);
    const content = await response.text();
    return {
      url,
      finalUrl: response.url,
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      content,
      bytesRead: Buffer.byteLength(content),
      truncated: false,
      provider: 'naive',
    };
  },
};

describe('the kits against broken providers', () => {
  it('the search kit fails every case, saying what was expected', async () => {
    const report = await checkWebSearchProvider({
      configured: () => brokenSearch(true),
      unconfigured: () => brokenSearch(false),
    });
    expect(report.passed).toBe(0);
    expect(Object.fromEntries(report.failed.map((f) => [f.name, f.message]))).toEqual({
      'declares specification version 1, kind "search" and a stable id':
        'identity: expected an id of lower-case letters, digits and dashes, got "Broken Search"',
      'returns well-formed results and honours maxResults':
        'results (maxResults 1): expected at least 1 and at most 1 hits, got 20',
      'fails with FETCH_FAILED when the signal is already aborted':
        'cancelled search: expected a SpineError with code FETCH_FAILED, but it resolved with []',
      'reports itself unavailable with a reason and refuses to search':
        'unconfigured: expected availability() to say unavailable, got {"available":true}',
    });
  });

  it('the fetch kit fails every case but identity, saying what was expected', async () => {
    const report = await checkWebFetchProvider({
      provider: () => brokenFetch,
      pageUrl: () => api.url('/kit-page'),
    });
    expect(report.passed).toBe(1);
    const messages = Object.fromEntries(report.failed.map((f) => [f.name, f.message]));
    expect(messages).toEqual({
      'fetches an HTML page as converted text with every metadata field': expect.stringMatching(
        /^page fetch: expected HTML converted for the model \(no raw tags\), got "<!doctype html>/,
      ),
      'refuses private, loopback, metadata and non-HTTP URLs with URL_REFUSED':
        'refused URL file:///etc/passwd: expected a typed SpineError with code URL_REFUSED, but it threw TypeError: fetch failed',
      'fails with a typed error when the signal is already aborted':
        'cancelled fetch: expected a typed SpineError with code FETCH_FAILED, but it threw AbortError: This operation was aborted',
    });
  });
});

describe.each(searchProviders)('WebSearchProvider kit: %s', (_name, fixture) => {
  for (const c of webSearchConformanceCases) it(c.name, () => c.run(fixture));
});

describe('WebFetchProvider kit: http', () => {
  const fixture = {
    provider: () => fetchHarness().provider,
    pageUrl: () => site.url('/'),
    refusedUrls: ['http://example.com/', ...DEFAULT_REFUSED_URLS],
  };
  for (const c of webFetchConformanceCases) it(c.name, () => c.run(fixture));
});
