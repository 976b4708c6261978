import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBraveSearchProvider,
  createExaSearchProvider,
  createPerplexitySearchProvider,
  createSearxngSearchProvider,
  createTavilySearchProvider,
  FetchFailedError,
  ProviderUnavailableError,
} from '../src/index.js';
import { startHttpServer, type TestServer } from './support/servers.js';

let server: TestServer;
let status = 200;

const json = (response: import('node:http').ServerResponse, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

beforeAll(async () => {
  server = await startHttpServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (status === 429)
      return void response.writeHead(429, { 'content-type': 'text/plain' }).end('slow down');
    if (status === 401)
      return void response
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":"bad key"}');
    if (path === '/exa/search') {
      return json(response, {
        requestId: 'r1',
        resolvedSearchType: 'neural',
        results: [
          {
            id: 'a',
            title: 'Undici docs',
            url: 'https://undici.example/docs',
            publishedDate: '2026-01-02T00:00:00.000Z',
            author: null,
            text: 'Undici is an HTTP/1.1 client',
            score: 0.9,
          },
          {
            id: 'b',
            title: 'Highlights',
            url: 'https://h.example/',
            highlights: ['first point', 'second point'],
            text: 'ignored',
          },
          { id: 'c', title: 'No URL' },
        ],
      });
    }
    if (path === '/brave/res/v1/web/search') {
      return json(response, {
        type: 'search',
        query: { original: 'q' },
        web: {
          type: 'search',
          results: [
            {
              title: 'Node &amp; undici',
              url: 'https://nodejs.example/undici',
              description: 'The <strong>fast</strong> HTTP client',
              page_age: '2026-03-01T00:00:00',
              age: 'March 1, 2026',
            },
            { title: 'Second', url: 'https://second.example/', description: 'two' },
          ],
        },
      });
    }
    if (path === '/tavily/search') {
      return json(response, {
        query: 'q',
        answer: null,
        response_time: 0.8,
        results: [
          {
            title: 'Tavily hit',
            url: 'https://tavily.example/a',
            content: 'extracted content',
            score: 0.77,
            raw_content: null,
          },
        ],
      });
    }
    if (path === '/pplx/chat/completions') {
      return json(response, {
        id: 'x',
        model: 'sonar',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: { role: 'assistant', content: 'NAT64 maps IPv6 to IPv4 [1].' },
          },
        ],
        citations: ['https://rfc.example/6146'],
        search_results: [
          { title: 'RFC 6146', url: 'https://rfc.example/6146', date: '2011-04-01' },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
      });
    }
    if (path === '/pplx-old/chat/completions') {
      return json(response, {
        choices: [{ message: { role: 'assistant', content: 'Answer.' } }],
        citations: ['https://one.example/', 'https://two.example/'],
      });
    }
    if (path === '/searx/search') {
      return json(response, {
        query: 'q',
        number_of_results: 0,
        results: [
          {
            url: 'https://searx-hit.example/',
            title: 'SearX hit',
            content: 'from several engines',
            engine: 'duckduckgo',
            publishedDate: null,
          },
        ],
        answers: [],
        suggestions: [],
      });
    }
    response.writeHead(404).end();
  });
});

afterAll(() => server.close());

const lastRequest = () => server.requests[server.requests.length - 1]!;

describe('search adapters against local servers speaking their wire formats', () => {
  it('Exa: POST /search with x-api-key, numResults and text contents', async () => {
    const exa = createExaSearchProvider({ apiKey: 'exa-key', baseUrl: server.url('/exa') });
    const results = await exa.search({ query: 'undici', maxResults: 3 });
    const sent = lastRequest();
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/exa/search');
    expect(sent.headers['x-api-key']).toBe('exa-key');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({
      query: 'undici',
      numResults: 3,
      type: 'auto',
      contents: { text: { maxCharacters: 600 } },
    });
    expect(results).toEqual([
      {
        title: 'Undici docs',
        url: 'https://undici.example/docs',
        snippet: 'Undici is an HTTP/1.1 client',
        publishedAt: '2026-01-02T00:00:00.000Z',
      },
      { title: 'Highlights', url: 'https://h.example/', snippet: 'first point … second point' },
    ]);
  });

  it('Brave: GET /res/v1/web/search with X-Subscription-Token; HTML in snippets is cleaned', async () => {
    const brave = createBraveSearchProvider({
      env: { BRAVE_API_KEY: 'brave-key' },
      baseUrl: server.url('/brave'),
    });
    const results = await brave.search({ query: 'node undici', maxResults: 1 });
    const sent = lastRequest();
    expect(sent.method).toBe('GET');
    expect(sent.url).toBe('/brave/res/v1/web/search?q=node+undici&count=1&safesearch=moderate');
    expect(sent.headers['x-subscription-token']).toBe('brave-key');
    expect(sent.headers.accept).toBe('application/json');
    expect(results).toEqual([
      {
        title: 'Node & undici',
        url: 'https://nodejs.example/undici',
        snippet: 'The fast HTTP client',
        publishedAt: '2026-03-01T00:00:00',
      },
    ]);
  });

  it('Tavily: POST /search with a bearer key and max_results', async () => {
    const tavily = createTavilySearchProvider({
      env: { TAVILY_API_KEY: 'tvly-key' },
      baseUrl: server.url('/tavily'),
    });
    const results = await tavily.search({ query: 'q' });
    const sent = lastRequest();
    expect(sent.headers.authorization).toBe('Bearer tvly-key');
    expect(JSON.parse(sent.body)).toEqual({
      query: 'q',
      max_results: 5,
      search_depth: 'basic',
      include_answer: false,
    });
    expect(results).toEqual([
      { title: 'Tavily hit', url: 'https://tavily.example/a', snippet: 'extracted content' },
    ]);
  });

  it('Perplexity: POST /chat/completions with model sonar; answer first, then search_results', async () => {
    const sonar = createPerplexitySearchProvider({
      apiKey: 'pplx-key',
      baseUrl: server.url('/pplx'),
    });
    const results = await sonar.search({ query: 'What is NAT64?' });
    const sent = lastRequest();
    expect(sent.url).toBe('/pplx/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer pplx-key');
    const body = JSON.parse(sent.body);
    expect(body.model).toBe('sonar');
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'What is NAT64?' });
    expect(results).toEqual([
      {
        kind: 'answer',
        title: 'Perplexity sonar answer',
        url: 'https://rfc.example/6146',
        snippet: 'NAT64 maps IPv6 to IPv4 [1].',
      },
      {
        title: 'RFC 6146',
        url: 'https://rfc.example/6146',
        snippet: '',
        publishedAt: '2011-04-01',
      },
    ]);
  });

  it('Perplexity: falls back to citations when search_results is absent', async () => {
    const sonar = createPerplexitySearchProvider({ apiKey: 'k', baseUrl: server.url('/pplx-old') });
    const results = await sonar.search({ query: 'q', maxResults: 1 });
    expect(results.map((result) => result.url)).toEqual([
      'https://one.example/',
      'https://one.example/',
    ]);
    expect(results[0]?.kind).toBe('answer');
  });

  it('SearXNG: GET /search?format=json on the configured instance, no key', async () => {
    const searx = createSearxngSearchProvider({ env: { SEARXNG_URL: `${server.url('/searx')}/` } });
    const results = await searx.search({ query: 'q r' });
    expect(lastRequest().url).toBe('/searx/search?q=q+r&format=json&pageno=1');
    expect(results).toEqual([
      { title: 'SearX hit', url: 'https://searx-hit.example/', snippet: 'from several engines' },
    ]);
  });

  it('reports a missing key or URL as unavailable, naming the variable', async () => {
    const cases = [
      [createExaSearchProvider({ env: {} }), 'EXA_API_KEY'],
      [createBraveSearchProvider({ env: {} }), 'BRAVE_API_KEY'],
      [createTavilySearchProvider({ env: {} }), 'TAVILY_API_KEY'],
      [createPerplexitySearchProvider({ env: {} }), 'PERPLEXITY_API_KEY'],
      [createSearxngSearchProvider({ env: {} }), 'SEARXNG_URL'],
    ] as const;
    for (const [provider, variable] of cases) {
      const state = provider.availability();
      expect(state.available).toBe(false);
      expect(state.available ? '' : state.reason).toContain(variable);
      await expect(provider.search({ query: 'q' })).rejects.toBeInstanceOf(
        ProviderUnavailableError,
      );
    }
  });

  it('maps 401 and 429 to typed errors that say what to do', async () => {
    const exa = createExaSearchProvider({ apiKey: 'bad', baseUrl: server.url('/exa') });
    status = 401;
    try {
      const auth = await exa.search({ query: 'q' }).catch((caught: unknown) => caught);
      expect(auth).toBeInstanceOf(FetchFailedError);
      expect((auth as FetchFailedError).reason).toBe('auth');
      expect((auth as Error).message).toContain('check EXA_API_KEY');
      status = 429;
      const limited = await exa.search({ query: 'q' }).catch((caught: unknown) => caught);
      expect((limited as FetchFailedError).reason).toBe('rate-limited');
    } finally {
      status = 200;
    }
  });

  it('fails cleanly when the API is unreachable or times out', async () => {
    const closed = createTavilySearchProvider({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
    const error = await closed.search({ query: 'q' }).catch((caught: unknown) => caught);
    expect((error as FetchFailedError).reason).toBe('network');
  });
});
