import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe } from 'vitest';
import {
  createBraveSearchProvider,
  createExaSearchProvider,
  createPerplexitySearchProvider,
  createSearxngSearchProvider,
  createTavilySearchProvider,
} from '../src/index.js';
import { fetchHarness } from './support/fetch-harness.js';
import { testWebFetchProvider, testWebSearchProvider } from './support/provider-conformance.js';
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
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
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
    response.writeHead(404).end();
  });
});

afterAll(async () => {
  await api.close();
  await site.close();
});

describe('WebSearchProvider conformance', () => {
  const base = () => api.url('');
  testWebSearchProvider('exa', {
    configured: () => createExaSearchProvider({ apiKey: 'k', baseUrl: base() }),
    unconfigured: () => createExaSearchProvider({ env: {} }),
  });
  testWebSearchProvider('brave', {
    configured: () => createBraveSearchProvider({ apiKey: 'k', baseUrl: base() }),
    unconfigured: () => createBraveSearchProvider({ env: {} }),
  });
  testWebSearchProvider('tavily', {
    configured: () => createTavilySearchProvider({ apiKey: 'k', baseUrl: base() }),
    unconfigured: () => createTavilySearchProvider({ env: {} }),
  });
  testWebSearchProvider('perplexity', {
    configured: () => createPerplexitySearchProvider({ apiKey: 'k', baseUrl: base() }),
    unconfigured: () => createPerplexitySearchProvider({ env: {} }),
  });
  testWebSearchProvider('searxng', {
    configured: () => createSearxngSearchProvider({ baseUrl: base() }),
    unconfigured: () => createSearxngSearchProvider({ env: {} }),
  });
});

describe('WebFetchProvider conformance', () => {
  testWebFetchProvider('http', () => fetchHarness().provider, {
    ok: () => site.url('/'),
    refused: ['http://example.com/', 'https://10.0.0.1/', 'https://0x7f.1/'],
  });
});
