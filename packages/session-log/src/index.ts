// Public API of @spine/session-log. Every export here is a semver promise.

export {
  IllegalSurfaceOpError,
  InvalidEventError,
  InvalidRangeError,
  SessionClosedError,
  SessionCorruptError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  StoreUnavailableError,
  UnknownEventTypeError,
  UnsupportedFormatError,
} from './errors.js';
export type { Migration } from './migrations.js';
export { formatVersionOf, MIGRATIONS, migrateEvents, migrateV0ToV1 } from './migrations.js';
export { createDefaultProjector } from './projector.js';
export { Session } from './session.js';
export type { WriteSessionMarkdownOptions } from './session-markdown.js';
export { renderSessionMarkdown, writeSessionMarkdown } from './session-markdown.js';
export { NOT_STARTED_CONTENT, OUTCOME_UNKNOWN_CONTENT } from './session-recovery.js';
export { SurfaceState } from './session-surface.js';
export type { JsonlStoreOptions } from './store-jsonl.js';
export { createJsonlStore } from './store-jsonl.js';
export type {
  JsonlFileProblem,
  JsonlFileProblemReason,
  ListJsonlSessionsOptions,
  ListJsonlSessionsResult,
} from './store-jsonl-list.js';
export { listJsonlSessions } from './store-jsonl-list.js';
export type { LastJsonlEventOptions } from './store-jsonl-peek.js';
export { readJsonlHeader, readLastJsonlEvent } from './store-jsonl-peek.js';
export type { MemoryStoreOptions } from './store-memory.js';
export { createMemoryStore } from './store-memory.js';
export type {
  FsyncPolicy,
  SessionCreateOptions,
  SessionForkOptions,
  SessionOpenOptions,
  SessionProjection,
  SnapshotPolicy,
} from './types.js';
export type {
  ChainProblem,
  ChainProblemKind,
  UnverifiedTail,
  VerifyJsonlResult,
} from './verify-jsonl.js';
export { verifyJsonlLog } from './verify-jsonl.js';
