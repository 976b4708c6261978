// Public API of @spine/session-log/sqlite. Every export here is a semver promise.
// A separate entry so that importing @spine/session-log never loads better-sqlite3.

export type { SqliteStore, SqliteStoreOptions } from './store-sqlite.js';
export { createSqliteStore } from './store-sqlite.js';
