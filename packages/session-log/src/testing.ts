// Public API of @spine/session-log/testing. Every export here is a semver promise.
// The SessionStore conformance suite, free of any test framework: a store written outside Spine
// (Postgres, S3, IndexedDB…) runs it to show it behaves like the memory, JSONL and SQLite stores.

export type {
  CheckSessionStoreOptions,
  CheckSessionStoreResult,
  StoreConformanceFailure,
} from './testing/check.js';
export {
  checkSessionStore,
  DEFAULT_CASE_TIMEOUT_MS,
  storeConformanceCases,
} from './testing/check.js';
export type { StoreConformanceCase, StoreUnderTest } from './testing/types.js';
