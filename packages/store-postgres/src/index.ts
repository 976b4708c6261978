// Public API of @spine/store-postgres. Every export here is a semver promise.
/**
 * A PostgreSQL SessionStore with leases and fencing, live followers and a task queue for workers.
 *
 * @packageDocumentation
 */

export type { ChainProblem, ChainResult } from './chain.js';
export { chainHash, verifyPostgresChain } from './chain.js';
export {
  AppendConflictError,
  InvalidRangeError,
  InvalidSessionIdError,
  InvalidTaskError,
  LeaseLostError,
  SchemaNotMigratedError,
  SessionClosedError,
  SessionCorruptError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  StoreConfigError,
  StorePermissionError,
  StoreUnavailableError,
} from './errors.js';
export type { FollowOptions } from './follow.js';
export type { ConnectionOptions } from './internal/database.js';
export { DEFAULT_BOUNDS, describeConnection } from './internal/database.js';
export { LEASE_TAKEOVER_EVENT } from './internal/lease.js';
export type { MigrateResult, PostgresMigration } from './migrations.js';
export {
  migratePostgresStore,
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
} from './migrations.js';
export type {
  PostgresSessionSummary,
  PostgresStore,
  PostgresStoreOptions,
} from './store-postgres.js';
export { createPostgresStore, DEFAULT_LEASE_MS } from './store-postgres.js';
export type {
  PostgresTaskQueue,
  PostgresTaskQueueOptions,
  TaskRecord,
  TaskSpec,
  TaskStatus,
} from './task-queue.js';
export { createPostgresTaskQueue } from './task-queue.js';
