import type { WebSearchProvider, WebSearchResult } from '@spine/protocol';
import {
  arrayField,
  defineSearchProvider,
  field,
  requestJson,
  type SearchProviderOptions,
  toResult,
} from './internal/search-http.js';

/** Options of {@link createExaSearchProvider}. Key: `apiKey` or `EXA_API_KEY`. */
export interface ExaSearchOptions extends SearchProviderOptions {
  /** Exa search type. Default `auto`. */
  searchType?: 'auto' | 'neural' | 'keyword' | 'fast';
}

/**
 * Creates an Exa search provider (`POST /search` with `x-api-key`; page text excerpts as snippets).
 *
 * @example
 * ```ts
 * const exa = createExaSearchProvider({ apiKey: process.env.EXA_API_KEY });
 * const hits = await exa.search({ query: 'undici pinned lookup', maxResults: 5 });
 * ```
 */
export function createExaSearchProvider(options: ExaSearchOptions = {}): WebSearchProvider {
  const label = 'Exa';
  return defineSearchProvider(
    {
      id: 'exa',
      label,
      defaultBaseUrl: 'https://api.exa.ai',
      keyVariables: ['EXA_API_KEY'],
      async run(query, context) {
        const data = await requestJson(
          { label, authHint: 'check EXA_API_KEY' },
          `${context.baseUrl}/search`,
          {
            method: 'POST',
            headers: { 'x-api-key': context.apiKey ?? '' },
            body: {
              query: query.query,
              numResults: query.maxResults,
              type: options.searchType ?? 'auto',
              contents: { text: { maxCharacters: 600 } },
            },
            ...(context.signal ? { signal: context.signal } : {}),
          },
        );
        return arrayField(data, 'results')
          .map((hit) => {
            const highlights = arrayField(hit, 'highlights').filter(
              (item) => typeof item === 'string',
            );
            const snippet =
              highlights.length > 0
                ? highlights.join(' … ')
                : (field(hit, 'summary') ?? field(hit, 'text'));
            return toResult(
              field(hit, 'title'),
              field(hit, 'url'),
              snippet,
              field(hit, 'publishedDate'),
            );
          })
          .filter((hit): hit is WebSearchResult => hit !== undefined);
      },
    },
    options,
  );
}
