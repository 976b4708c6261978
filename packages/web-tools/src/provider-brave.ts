import type { WebSearchProvider, WebSearchResult } from '@spine/protocol';
import {
  arrayField,
  defineSearchProvider,
  field,
  requestJson,
  type SearchProviderOptions,
  toResult,
} from './internal/search-http.js';

/** Options of {@link createBraveSearchProvider}. Key: `apiKey`, `BRAVE_API_KEY` or `BRAVE_SEARCH_API_KEY`. */
export interface BraveSearchOptions extends SearchProviderOptions {
  /** Safe-search level. Default `moderate`. */
  safesearch?: 'off' | 'moderate' | 'strict';
}

/**
 * Creates a Brave Search provider (`GET /res/v1/web/search` with `X-Subscription-Token`).
 *
 * @example
 * ```ts
 * const brave = createBraveSearchProvider({ apiKey: process.env.BRAVE_API_KEY });
 * const hits = await brave.search({ query: 'node 20 abortsignal any' });
 * ```
 */
export function createBraveSearchProvider(options: BraveSearchOptions = {}): WebSearchProvider {
  const label = 'Brave Search';
  return defineSearchProvider(
    {
      id: 'brave',
      label,
      defaultBaseUrl: 'https://api.search.brave.com',
      keyVariables: ['BRAVE_API_KEY', 'BRAVE_SEARCH_API_KEY'],
      async run(query, context) {
        const parameters = new URLSearchParams({
          q: query.query,
          count: String(query.maxResults),
          safesearch: options.safesearch ?? 'moderate',
        });
        const data = await requestJson(
          { label, authHint: 'check BRAVE_API_KEY' },
          `${context.baseUrl}/res/v1/web/search?${parameters}`,
          {
            method: 'GET',
            headers: { 'x-subscription-token': context.apiKey ?? '' },
            ...(context.signal ? { signal: context.signal } : {}),
          },
        );
        return arrayField(field(data, 'web'), 'results')
          .map((hit) =>
            toResult(
              field(hit, 'title'),
              field(hit, 'url'),
              field(hit, 'description'),
              field(hit, 'page_age') ?? field(hit, 'age'),
            ),
          )
          .filter((hit): hit is WebSearchResult => hit !== undefined);
      },
    },
    options,
  );
}
