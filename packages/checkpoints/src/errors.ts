import { SpineError } from '@spine/protocol';

/** Thrown when a snapshot id is not in the checkpoint store. */
export class CheckpointNotFoundError extends SpineError {
  /** The id asked for. */
  readonly id: string;

  constructor(options: { id: string }) {
    super({
      code: 'CHECKPOINT_NOT_FOUND',
      message: `Checkpoint ${JSON.stringify(options.id.slice(0, 80))} is not in this store; pick one listed in the session log (workspace/checkpoint events).`,
    });
    this.id = options.id;
  }
}

/** Thrown when the store cannot read or write (git missing, disk full, permissions). */
export class CheckpointFailedError extends SpineError {
  constructor(options: { action: string; cause: unknown }) {
    const detail = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super({
      code: 'CHECKPOINT_FAILED',
      message: `Could not ${options.action}: ${detail}. Check that git is installed and the checkpoint directory is writable.`,
      cause: options.cause,
    });
  }
}

/**
 * Thrown by a rewind that would overwrite files changed outside Spine since its last checkpoint,
 * when the caller did not confirm.
 */
export class RewindConflictError extends SpineError {
  /** Workspace-relative paths that changed outside Spine and would be overwritten. */
  readonly paths: string[];

  constructor(options: { paths: string[] }) {
    const shown = options.paths.slice(0, 10).join(', ');
    super({
      code: 'REWIND_CONFLICT',
      message: `Rewind would overwrite ${options.paths.length} file(s) changed outside Spine since its last checkpoint (${shown}${options.paths.length > 10 ? ', …' : ''}); review them, then confirm (--yes) to overwrite.`,
    });
    this.paths = options.paths;
  }
}

/**
 * Thrown when a session's checkpoint store is missing or damaged (deleted, emptied, objects
 * unreadable): nothing in the workspace was changed. Code `STORE_UNAVAILABLE` (exit 2 in the CLI).
 */
export class CheckpointStoreMissingError extends SpineError {
  /** The store's folder, when known. */
  readonly directory: string | undefined;

  constructor(options: { directory?: string; id: string; cause?: unknown }) {
    const store = options.directory
      ? `The checkpoint store ${options.directory}`
      : 'The checkpoint store';
    super({
      code: 'STORE_UNAVAILABLE',
      message: `${store} does not hold checkpoint ${options.id.slice(0, 12)} (it was deleted or damaged); nothing was changed. The workspace cannot be rewound to checkpoints recorded before the store was lost.`,
      cause: options.cause,
    });
    this.directory = options.directory;
  }
}
