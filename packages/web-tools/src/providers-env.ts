import type { WebProvider } from '@spine/protocol';
import { createHttpFetchProvider, type HttpFetchOptions } from './fetch-http.js';
import { createBraveSearchProvider } from './provider-brave.js';
import { createExaSearchProvider } from './provider-exa.js';
import { createPerplexitySearchProvider } from './provider-perplexity.js';
import { createSearxngSearchProvider } from './provider-searxng.js';
import { createTavilySearchProvider } from './provider-tavily.js';

/** Options of {@link webProvidersFromEnv}. */
export interface WebProvidersFromEnvOptions {
  /** Deployment configuration of the HTTP fetch provider (limits, trusted ranges, proxy). */
  fetch?: HttpFetchOptions;
}

/**
 * Every built-in provider, configured from the environment: Exa (`EXA_API_KEY`), Brave
 * (`BRAVE_API_KEY`), Tavily (`TAVILY_API_KEY`), Perplexity (`PERPLEXITY_API_KEY`), SearXNG
 * (`SEARXNG_URL`) and the hardened HTTP fetch provider. Providers without their key report
 * themselves unavailable, naming the variable; {@link createWebRuntime} then selects strictly.
 *
 * @example
 * ```ts
 * const web = createWebRuntime({ providers: webProvidersFromEnv(process.env), search: config.search });
 * ```
 */
export function webProvidersFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: WebProvidersFromEnvOptions = {},
): WebProvider[] {
  return [
    createExaSearchProvider({ env }),
    createBraveSearchProvider({ env }),
    createTavilySearchProvider({ env }),
    createPerplexitySearchProvider({ env }),
    createSearxngSearchProvider({ env }),
    createHttpFetchProvider({ env, ...options.fetch }),
  ];
}
