import type { WebSearchProvider, WebSearchResult } from '@spine/protocol';
import {
  arrayField,
  cleanSnippet,
  defineSearchProvider,
  field,
  requestJson,
  type SearchProviderOptions,
  toResult,
} from './internal/search-http.js';

/** Options of {@link createPerplexitySearchProvider}. Key: `apiKey` or `PERPLEXITY_API_KEY`. */
export interface PerplexitySearchOptions extends SearchProviderOptions {
  /** Sonar model. Default `sonar`. */
  model?: string;
}

/**
 * Creates a Perplexity (Sonar) search provider: `POST /chat/completions`; the written answer comes
 * first (`kind: 'answer'`), followed by the sources (`search_results`, else `citations`).
 *
 * @example
 * ```ts
 * const sonar = createPerplexitySearchProvider({ apiKey: process.env.PERPLEXITY_API_KEY });
 * const [answer, ...sources] = await sonar.search({ query: 'What is NAT64?' });
 * ```
 */
export function createPerplexitySearchProvider(
  options: PerplexitySearchOptions = {},
): WebSearchProvider {
  const label = 'Perplexity';
  return defineSearchProvider(
    {
      id: 'perplexity',
      label,
      defaultBaseUrl: 'https://api.perplexity.ai',
      keyVariables: ['PERPLEXITY_API_KEY'],
      async run(query, context) {
        const data = await requestJson(
          { label, authHint: 'check PERPLEXITY_API_KEY' },
          `${context.baseUrl}/chat/completions`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${context.apiKey ?? ''}` },
            body: {
              model: options.model ?? 'sonar',
              messages: [
                { role: 'system', content: 'Answer concisely and cite your sources.' },
                { role: 'user', content: query.query },
              ],
            },
            ...(context.signal ? { signal: context.signal } : {}),
          },
        );
        const sources = arrayField(data, 'search_results')
          .map((hit) =>
            toResult(
              field(hit, 'title'),
              field(hit, 'url'),
              field(hit, 'snippet'),
              field(hit, 'date'),
            ),
          )
          .filter((hit): hit is WebSearchResult => hit !== undefined);
        if (sources.length === 0) {
          for (const citation of arrayField(data, 'citations')) {
            const hit = toResult(citation, citation, '', undefined);
            if (hit) sources.push(hit);
          }
        }
        const message = field(field(arrayField(data, 'choices')[0], 'message'), 'content');
        const answer = cleanSnippet(message, 4000);
        if (answer === '') return sources;
        const first = sources[0]?.url ?? '';
        return [
          {
            kind: 'answer',
            title: `${label} ${options.model ?? 'sonar'} answer`,
            url: first,
            snippet: answer,
          },
          ...sources,
        ];
      },
    },
    options,
  );
}
