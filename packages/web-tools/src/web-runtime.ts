import {
  assertSpecificationVersion,
  type WebFetchProvider,
  type WebFetchResult,
  type WebProvider,
  type WebSearchProvider,
  type WebSearchQuery,
  type WebSearchResult,
} from '@spine/protocol';
import { ProviderAmbiguousError, ProviderUnavailableError, WebConfigError } from './errors.js';

/** Options of {@link createWebRuntime}. */
export interface WebRuntimeOptions {
  /** Every provider the deployment knows about, available or not. */
  providers: WebProvider[];
  /** Id of the search provider to use. When absent, exactly one search provider must be available. */
  search?: string;
  /** Id of the fetch provider to use. When absent, exactly one fetch provider must be available. */
  fetch?: string;
}

/** Search results with the id of the provider that produced them. */
export interface WebRuntimeSearchResult {
  /** Provider id. */
  provider: string;
  /** The hits, in provider order. */
  results: WebSearchResult[];
}

/** How a kind's provider was (or could not be) chosen, for `doctor`-style reports. */
export type WebSelection =
  | {
      /** A provider is in force. */
      status: 'selected';
      /** Its id. */
      provider: string;
      /** True when it was chosen by configuration rather than by being the only one available. */
      configured: boolean;
    }
  | {
      /** No provider can be selected. */
      status: 'error';
      /** Why, and what to configure. */
      message: string;
    };

/** The selection for both kinds, from {@link WebRuntime.describe}. */
export interface WebSelectionReport {
  /** The search selection. */
  search: WebSelection;
  /** The fetch selection. */
  fetch: WebSelection;
}

/** The web capability behind `web_search` and `web_fetch`: providers plus strict selection. */
export interface WebRuntime {
  /** All providers, in the order given. */
  readonly providers: readonly WebProvider[];
  /**
   * The search provider in force.
   *
   * @throws a {@link ProviderUnavailableError} when none is available, or the configured one is
   *   not.
   * @throws a {@link ProviderAmbiguousError} when several are available and none is configured.
   */
  searchProvider(): WebSearchProvider;
  /**
   * The fetch provider in force.
   *
   * @throws a {@link ProviderUnavailableError} when none is available, or the configured one is
   *   not.
   * @throws a {@link ProviderAmbiguousError} when several are available and none is configured.
   */
  fetchProvider(): WebFetchProvider;
  /** Runs a search on the selected provider. */
  search(
    query: WebSearchQuery,
    options?: { signal?: AbortSignal },
  ): Promise<WebRuntimeSearchResult>;
  /** Fetches a URL with the selected provider. */
  fetch(url: string, options?: { signal?: AbortSignal }): Promise<WebFetchResult>;
  /** Reports the selection for both kinds without throwing. */
  describe(): WebSelectionReport;
}

function select<P extends WebProvider>(
  kind: P['kind'],
  providers: P[],
  configured: string | undefined,
): P {
  if (configured !== undefined) {
    const chosen = providers.find((provider) => provider.id === configured);
    if (!chosen)
      throw new WebConfigError({ detail: unknownIdMessage(kind, configured, providers) });
    const state = chosen.availability();
    if (!state.available) {
      throw new ProviderUnavailableError({
        kind,
        detail: `The configured ${kind} provider "${configured}" is unavailable: ${state.reason}`,
      });
    }
    return chosen;
  }
  const available = providers.filter((provider) => provider.availability().available);
  if (available.length === 1) return available[0]!;
  if (available.length > 1)
    throw new ProviderAmbiguousError({
      kind,
      candidates: available.map((provider) => provider.id),
    });
  const reasons = [...providers]
    .sort((left, right) => left.id.localeCompare(right.id))
    .map((provider) => {
      const state = provider.availability();
      return `${provider.id}: ${state.available ? 'available' : state.reason}`;
    });
  throw new ProviderUnavailableError({
    kind,
    detail:
      reasons.length === 0
        ? `No ${kind} provider is configured; add one to the web providers`
        : `No ${kind} provider is available (${reasons.join('; ')})`,
  });
}

function unknownIdMessage(kind: string, id: string, providers: WebProvider[]): string {
  const known = providers.map((provider) => provider.id).sort();
  return `Unknown ${kind} provider "${id}"; known ${kind} providers: ${known.length > 0 ? known.join(', ') : '(none)'}`;
}

/**
 * Creates a web runtime with strict provider selection: a configured id selects that provider
 * (an unknown id throws now); otherwise exactly one available provider of the kind is used, and
 * several available ones are an error listing them. The order of `providers` never matters.
 *
 * @throws a {@link WebConfigError} for an unknown configured id or duplicate provider ids.
 * @example
 * ```ts
 * const web = createWebRuntime({ providers: webProvidersFromEnv(), search: 'brave' });
 * const { results } = await web.search({ query: 'rfc 6598' });
 * ```
 */
export function createWebRuntime(options: WebRuntimeOptions): WebRuntime {
  const providers = [...options.providers];
  const seen = new Set<string>();
  for (const provider of providers) {
    assertSpecificationVersion(`WebProvider "${provider.id}"`, provider);
    const key = `${provider.kind}:${provider.id}`;
    if (seen.has(key))
      throw new WebConfigError({
        detail: `Two ${provider.kind} providers share the id "${provider.id}"; give each a distinct id`,
      });
    seen.add(key);
  }
  const searchers = providers.filter(
    (provider): provider is WebSearchProvider => provider.kind === 'search',
  );
  const fetchers = providers.filter(
    (provider): provider is WebFetchProvider => provider.kind === 'fetch',
  );
  if (
    options.search !== undefined &&
    !searchers.some((provider) => provider.id === options.search)
  ) {
    throw new WebConfigError({ detail: unknownIdMessage('search', options.search, searchers) });
  }
  if (options.fetch !== undefined && !fetchers.some((provider) => provider.id === options.fetch)) {
    throw new WebConfigError({ detail: unknownIdMessage('fetch', options.fetch, fetchers) });
  }
  const searchProvider = (): WebSearchProvider => select('search', searchers, options.search);
  const fetchProvider = (): WebFetchProvider => select('fetch', fetchers, options.fetch);
  const describeOne = (pick: () => WebProvider, configured: string | undefined): WebSelection => {
    try {
      return { status: 'selected', provider: pick().id, configured: configured !== undefined };
    } catch (error) {
      return { status: 'error', message: (error as Error).message };
    }
  };
  return {
    providers,
    searchProvider,
    fetchProvider,
    async search(query, searchOptions) {
      const provider = searchProvider();
      return { provider: provider.id, results: await provider.search(query, searchOptions) };
    },
    fetch(url, fetchOptions) {
      return fetchProvider().fetch(url, fetchOptions);
    },
    describe() {
      return {
        search: describeOne(searchProvider, options.search),
        fetch: describeOne(fetchProvider, options.fetch),
      };
    },
  };
}
