import type { WebSearchProvider, WebSearchResult } from '@spine/protocol';
import {
  arrayField,
  defineSearchProvider,
  field,
  requestJson,
  type SearchProviderOptions,
  toResult,
} from './internal/search-http.js';

/** Options of {@link createTavilySearchProvider}. Key: `apiKey` or `TAVILY_API_KEY`. */
export interface TavilySearchOptions extends SearchProviderOptions {
  /** Tavily search depth. Default `basic`. */
  searchDepth?: 'basic' | 'advanced';
}

/**
 * Creates a Tavily search provider (`POST /search` with a bearer key).
 *
 * @example
 * ```ts
 * const tavily = createTavilySearchProvider({ apiKey: process.env.TAVILY_API_KEY });
 * const hits = await tavily.search({ query: 'bubblewrap unshare-net' });
 * ```
 */
export function createTavilySearchProvider(options: TavilySearchOptions = {}): WebSearchProvider {
  const label = 'Tavily';
  return defineSearchProvider(
    {
      id: 'tavily',
      label,
      defaultBaseUrl: 'https://api.tavily.com',
      keyVariables: ['TAVILY_API_KEY'],
      async run(query, context) {
        const data = await requestJson(
          { label, authHint: 'check TAVILY_API_KEY' },
          `${context.baseUrl}/search`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${context.apiKey ?? ''}` },
            body: {
              query: query.query,
              max_results: query.maxResults,
              search_depth: options.searchDepth ?? 'basic',
              include_answer: false,
            },
            ...(context.signal ? { signal: context.signal } : {}),
          },
        );
        return arrayField(data, 'results')
          .map((hit) =>
            toResult(
              field(hit, 'title'),
              field(hit, 'url'),
              field(hit, 'content'),
              field(hit, 'published_date'),
            ),
          )
          .filter((hit): hit is WebSearchResult => hit !== undefined);
      },
    },
    options,
  );
}
