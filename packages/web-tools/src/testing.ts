// Public API of @spine/web-tools/testing. Every export here is a semver promise.
// Conformance kits for WebSearchProvider and WebFetchProvider, free of any test framework: a
// provider written outside Spine runs them to show it keeps the protocol's contracts.

export {
  checkWebFetchProvider,
  checkWebSearchProvider,
  webFetchConformanceCases,
  webSearchConformanceCases,
} from './testing/check.js';
export type { WebFetchProviderFixture } from './testing/fetch-cases.js';
export {
  DEFAULT_REFUSED_URLS,
  WEB_FETCH_KIT_PAGE,
  WEB_FETCH_KIT_SENTENCE,
  WEB_FETCH_KIT_TITLE,
} from './testing/fetch-cases.js';
export type {
  CheckOptions,
  ConformanceCase,
  ConformanceCaseFailure,
  ConformanceReport,
} from './testing/kit.js';
export { ConformanceFailure, DEFAULT_CASE_TIMEOUT_MS } from './testing/kit.js';
export type { WebSearchProviderFixture } from './testing/search-cases.js';
