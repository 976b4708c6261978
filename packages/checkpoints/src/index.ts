// Public API of @spine/checkpoints. Every export here is a semver promise.
/**
 * Workspace checkpoints, rewind and verified tool outcomes after a crash.
 *
 * @packageDocumentation
 */

export type {
  ChangeKind,
  Checkpoint,
  CheckpointOptions,
  CheckpointStore,
  EntryState,
  RestoreOptions,
  RestoreResult,
  WorkspaceChange,
} from './checkpoint-store.js';
export { CheckpointFailedError, CheckpointNotFoundError, RewindConflictError } from './errors.js';
export {
  createGitCheckpointStore,
  DEFAULT_MAX_FILE_BYTES,
  type GitCheckpointStoreOptions,
} from './store-git.js';

/** The package's version. */
export const VERSION = '0.1.0';
