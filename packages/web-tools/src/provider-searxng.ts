import type { WebSearchProvider, WebSearchResult } from '@spine/protocol';
import {
  arrayField,
  defineSearchProvider,
  field,
  requestJson,
  type SearchProviderOptions,
  toResult,
} from './internal/search-http.js';

/** Options of {@link createSearxngSearchProvider}. URL: `baseUrl` or `SEARXNG_URL`; no key. */
export type SearxngSearchOptions = SearchProviderOptions;

/**
 * Creates a SearXNG provider for a self-hosted instance (`GET /search?format=json`). The instance
 * must list `json` in `search.formats` of its settings.yml.
 *
 * @example
 * ```ts
 * const searx = createSearxngSearchProvider({ baseUrl: 'http://searx.lan:8080' });
 * const hits = await searx.search({ query: 'turndown gfm tables' });
 * ```
 */
export function createSearxngSearchProvider(options: SearxngSearchOptions = {}): WebSearchProvider {
  const label = 'SearXNG';
  return defineSearchProvider(
    {
      id: 'searxng',
      label,
      defaultBaseUrl: undefined,
      keyVariables: [],
      baseUrlVariable: 'SEARXNG_URL',
      async run(query, context) {
        const parameters = new URLSearchParams({ q: query.query, format: 'json', pageno: '1' });
        const data = await requestJson(
          {
            label,
            authHint:
              'enable the json format in search.formats of settings.yml, or check the access rules',
          },
          `${context.baseUrl}/search?${parameters}`,
          { method: 'GET', ...(context.signal ? { signal: context.signal } : {}) },
        );
        return arrayField(data, 'results')
          .map((hit) =>
            toResult(
              field(hit, 'title'),
              field(hit, 'url'),
              field(hit, 'content'),
              field(hit, 'publishedDate'),
            ),
          )
          .filter((hit): hit is WebSearchResult => hit !== undefined);
      },
    },
    options,
  );
}
