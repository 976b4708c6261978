/** One search hit. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
  publishedAt?: string;
  /** `answer` marks a provider-written answer (Perplexity Sonar) rather than a page hit. Default `result`. */
  kind?: 'result' | 'answer';
}

/** Whether a provider can be used now, and if not, why (for example which variable to set). */
export type ProviderAvailability = { available: true } | { available: false; reason: string };

/** A search query. */
export interface WebSearchQuery {
  query: string;
  /** At most this many results. */
  maxResults?: number;
}

/** Result of a fetch, with the metadata the session records. */
export interface WebFetchResult {
  /** The URL asked for. */
  url: string;
  /** The URL after redirects. */
  finalUrl: string;
  status: number;
  contentType: string;
  /** Converted content (Markdown for HTML; text and JSON as is). */
  content: string;
  /** Bytes read from the network. */
  bytesRead: number;
  /** True when the body or the converted content was cut at a limit. */
  truncated: boolean;
  /** Provider id. */
  provider: string;
  /** Page title, when the content had one (HTML `<title>`). */
  title?: string;
  /** Length of the converted content before it was cut at the length limit. */
  originalLength?: number;
  /**
   * What the conversion changed that the model should know, written by the provider (never page
   * text): hidden content removed, tables kept as HTML, content cut at a limit.
   */
  notes?: string[];
}

/**
 * A web search backend (Exa, Brave, Tavily, Perplexity, SearXNG …).
 *
 * Contract: throws typed errors (`PROVIDER_UNAVAILABLE`, `FETCH_FAILED`); results are data.
 */
export interface WebSearchProvider {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** Always `search`. */
  readonly kind: 'search';
  /** Stable provider id used in configuration. */
  readonly id: string;
  /** Whether the provider is configured. */
  availability(): ProviderAvailability;
  /** Runs a search. */
  search(query: WebSearchQuery, options?: { signal?: AbortSignal }): Promise<WebSearchResult[]>;
}

/**
 * A web fetch backend. Network policy (schemes, addresses, redirects, limits) is enforced
 * here, outside the model.
 *
 * Contract: refused URLs throw `URL_REFUSED` before any connection is attempted.
 */
export interface WebFetchProvider {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** Always `fetch`. */
  readonly kind: 'fetch';
  /** Stable provider id used in configuration. */
  readonly id: string;
  /** Whether the provider is configured. */
  availability(): ProviderAvailability;
  /** Fetches a URL and converts its body for the model. */
  fetch(url: string, options?: { signal?: AbortSignal }): Promise<WebFetchResult>;
}

/** Either kind of web provider. */
export type WebProvider = WebSearchProvider | WebFetchProvider;
