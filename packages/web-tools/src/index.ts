// Public API of @spine/web-tools. Every export here is a semver promise.

// The address parsers (parseIp, parseCidr, embeddedIpv4, …) are in `@spine/web-tools/internal`.
export type { AddressPolicyOptions, AddressVerdict, IpRange } from './address-policy.js';
export { isRefusedAddress, parseTrustedRanges } from './address-policy.js';
export {
  FetchFailedError,
  ProviderAmbiguousError,
  ProviderUnavailableError,
  UrlRefusedError,
  WebConfigError,
} from './errors.js';
export type { ConnectAttempt, HttpFetchOptions } from './fetch-http.js';

export { createHttpFetchProvider, DEFAULT_FETCH_LIMITS } from './fetch-http.js';
export type { HtmlToMarkdownOptions, HtmlToMarkdownResult } from './html-markdown.js';
export { htmlToMarkdown } from './html-markdown.js';
export type { SearchProviderOptions } from './internal/search-http.js';
export type { HostLiteral, HostLiteralForm, IpAddress } from './ip-address.js';
export type {
  MarkdownHeading,
  MarkdownSlice,
  MarkdownWindow,
  MarkdownWindowOptions,
} from './markdown-window.js';
export { selectMarkdownWindow } from './markdown-window.js';
export type { BraveSearchOptions } from './provider-brave.js';
export { createBraveSearchProvider } from './provider-brave.js';
export type { ExaSearchOptions } from './provider-exa.js';
export { createExaSearchProvider } from './provider-exa.js';
export type { PerplexitySearchOptions } from './provider-perplexity.js';
export { createPerplexitySearchProvider } from './provider-perplexity.js';
export type { SearxngSearchOptions } from './provider-searxng.js';
export { createSearxngSearchProvider } from './provider-searxng.js';
export type { TavilySearchOptions } from './provider-tavily.js';
export { createTavilySearchProvider } from './provider-tavily.js';
export type { WebProvidersFromEnvOptions } from './providers-env.js';
export { webProvidersFromEnv } from './providers-env.js';
export type { ResolvedAddress, Resolver } from './resolver.js';
export { systemResolver } from './resolver.js';
export type { CheckedUrl, UrlPolicyOptions } from './url-policy.js';
export { checkUrl, DEFAULT_MAX_URL_LENGTH } from './url-policy.js';
export type {
  WebRuntime,
  WebRuntimeOptions,
  WebRuntimeSearchResult,
  WebSelection,
  WebSelectionReport,
} from './web-runtime.js';
export { createWebRuntime } from './web-runtime.js';
export type { WebToolsOptions } from './web-tools.js';
export {
  createWebTools,
  formatFetchResult,
  formatSearchResults,
  UNTRUSTED_NOTICE,
} from './web-tools.js';
