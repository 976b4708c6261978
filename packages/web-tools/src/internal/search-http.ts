import type {
  ProviderAvailability,
  WebSearchProvider,
  WebSearchQuery,
  WebSearchResult,
} from '@spine/protocol';
import { request } from 'undici';
import { FetchFailedError, ProviderUnavailableError } from '../errors.js';
import { readCapped } from './read-body.js';

/** Options every search adapter accepts. */
export interface SearchProviderOptions {
  /** Provider id used in configuration. Default: the backend name (`exa`, `brave` …). */
  id?: string;
  /** API key; when absent it is read from the environment variable the adapter names. */
  apiKey?: string;
  /** Environment to read keys and URLs from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** API base URL (a self-hosted instance, or a local test server). */
  baseUrl?: string;
  /** Time for one search request. Default 20 s. */
  timeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Everything a backend needs to run one request. */
export interface SearchContext {
  apiKey: string | undefined;
  baseUrl: string;
  signal?: AbortSignal;
}

/** What distinguishes one backend. */
export interface SearchBackend {
  id: string;
  label: string;
  defaultBaseUrl: string | undefined;
  /** Environment variables holding the key, first wins; empty when no key is needed. */
  keyVariables: string[];
  /** Environment variable holding the base URL, if the backend reads one. */
  baseUrlVariable?: string;
  run(
    query: WebSearchQuery & { maxResults: number },
    context: SearchContext,
  ): Promise<WebSearchResult[]>;
}

/** Builds a {@link WebSearchProvider} around a backend, with key and URL lookup. */
export function defineSearchProvider(
  backend: SearchBackend,
  options: SearchProviderOptions,
): WebSearchProvider {
  const env = options.env ?? process.env;
  const apiKey =
    options.apiKey ?? backend.keyVariables.map((name) => env[name]).find((value) => value);
  const baseUrl =
    options.baseUrl ??
    (backend.baseUrlVariable ? env[backend.baseUrlVariable] : undefined) ??
    backend.defaultBaseUrl;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const availability = (): ProviderAvailability => {
    if (backend.keyVariables.length > 0 && !apiKey) {
      return {
        available: false,
        reason: `${backend.label} needs an API key: set ${backend.keyVariables[0]} or pass { apiKey }`,
      };
    }
    if (!baseUrl) {
      return {
        available: false,
        reason: `${backend.label} needs its URL: set ${backend.baseUrlVariable ?? 'baseUrl'} or pass { baseUrl }`,
      };
    }
    return { available: true };
  };
  return {
    specificationVersion: 1,
    kind: 'search',
    id: options.id ?? backend.id,
    availability,
    async search(query, searchOptions) {
      const state = availability();
      if (!state.available)
        throw new ProviderUnavailableError({ kind: 'search', detail: state.reason });
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = searchOptions?.signal
        ? AbortSignal.any([searchOptions.signal, deadline])
        : deadline;
      const maxResults = Math.min(Math.max(Math.trunc(query.maxResults ?? 5), 1), 20);
      const results = await backend.run(
        { ...query, maxResults },
        { apiKey, baseUrl: (baseUrl as string).replace(/\/+$/, ''), signal },
      );
      const answers = results.filter((result) => result.kind === 'answer');
      const hits = results.filter((result) => result.kind !== 'answer').slice(0, maxResults);
      return [...answers, ...hits];
    },
  };
}

/** Sends one JSON request to a search API and returns the parsed body, mapping failures to typed errors. */
export async function requestJson(
  backend: { label: string; authHint: string },
  url: string,
  init: {
    method: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: unknown;
    signal?: AbortSignal;
  },
): Promise<unknown> {
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: init.method,
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  } catch (error) {
    const detail = init.signal?.aborted
      ? `${backend.label} search was cancelled or timed out`
      : `${backend.label} search request failed: ${(error as Error).message}`;
    throw new FetchFailedError({
      url,
      reason: init.signal?.aborted ? 'timeout' : 'network',
      detail,
      cause: error,
    });
  }
  const body = await readCapped(response.body, '', MAX_RESPONSE_BYTES);
  const text = body.bytes.toString('utf8');
  const status = response.statusCode;
  if (status === 401 || status === 403) {
    throw new FetchFailedError({
      url,
      status,
      reason: 'auth',
      detail: `${backend.label} refused the request (${status}); ${backend.authHint}`,
    });
  }
  if (status === 429) {
    throw new FetchFailedError({
      url,
      status,
      reason: 'rate-limited',
      detail: `${backend.label} rate limit reached (429); wait and retry`,
    });
  }
  if (status >= 400) {
    throw new FetchFailedError({
      url,
      status,
      reason: 'http-status',
      detail: `${backend.label} answered ${status}: ${text.slice(0, 200)}`,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new FetchFailedError({
      url,
      status,
      reason: 'bad-response',
      detail: `${backend.label} sent a response that is not JSON`,
      cause: error,
    });
  }
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
};

/** Plain text from an API snippet: tags stripped, common entities decoded, whitespace collapsed, capped. */
export function cleanSnippet(value: unknown, limit = 600): string {
  if (typeof value !== 'string') return '';
  const text = value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (whole, name: string) => ENTITIES[name] ?? whole)
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** Reads `value[key]` when `value` is an object. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** Reads `value[key]` as an array (empty when absent). */
export function arrayField(value: unknown, key: string): unknown[] {
  const found = field(value, key);
  return Array.isArray(found) ? found : [];
}

/** A result from loosely typed API fields; `undefined` when it has no URL. */
export function toResult(
  title: unknown,
  url: unknown,
  snippet: unknown,
  publishedAt: unknown,
): WebSearchResult | undefined {
  if (typeof url !== 'string' || url === '') return undefined;
  const result: WebSearchResult = {
    title: cleanSnippet(title, 200) || url,
    url,
    snippet: cleanSnippet(snippet),
  };
  if (typeof publishedAt === 'string' && publishedAt !== '') result.publishedAt = publishedAt;
  return result;
}
