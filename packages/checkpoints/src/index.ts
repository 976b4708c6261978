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
  UncoveredPath,
  UncoveredReason,
  WorkspaceChange,
} from './checkpoint-store.js';
export {
  CheckpointFailedError,
  CheckpointNotFoundError,
  CheckpointStoreMissingError,
  RewindConflictError,
} from './errors.js';
export {
  type CallIntent,
  type InterruptedCall,
  interruptedCalls,
  verifyInterruptedCalls,
} from './interrupted.js';
export {
  checkpointAt,
  type LoggedCheckpoint,
  lastKnownSnapshot,
  listCheckpoints,
  parseRewindTarget,
  type RewindTarget,
} from './log-points.js';
export {
  type BeforeStepTools,
  type CallEffect,
  type CheckpointRecorder,
  type CheckpointRecorderOptions,
  checkpointBody,
  createCheckpointRecorder,
  listedChanges,
} from './recorder.js';
export { type RewindOptions, type RewindOutcome, rewindWorkspace } from './rewind.js';
export {
  createGitCheckpointStore,
  DEFAULT_MAX_FILE_BYTES,
  type GitCheckpointStoreOptions,
} from './store-git.js';
export {
  contentHash,
  type OutcomeVerdict,
  verdictText,
  verifyCommand,
  verifyFileChange,
} from './verify.js';

/** The package's version. */
export const VERSION = '0.1.0';
