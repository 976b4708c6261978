import { SpineError } from '@spine/protocol';

/** An agent profile file (`.spine/agents/<name>.md`) is invalid; the message names the file and key. */
export class InvalidProfileError extends SpineError {
  /** The file (or `built-in`, or the caller's label) the profile came from. */
  readonly path: string;
  /** The frontmatter key at fault, `frontmatter` for the block itself, `body` for the prompt. */
  readonly key: string;

  constructor(options: { path: string; key: string; reason: string; cause?: unknown }) {
    super({
      code: 'INVALID_CONFIG',
      message: `agent profile ${options.path}: ${options.key}: ${options.reason}; fix the file or remove it`,
      cause: options.cause,
    });
    this.path = options.path;
    this.key = options.key;
  }
}

/** The options of `createTaskTool` cannot work (no profile, a duplicate name, a bad limit). */
export class InvalidTaskToolOptionsError extends SpineError {
  constructor(options: { reason: string }) {
    super({ code: 'INVALID_CONFIG', message: `task tool: ${options.reason}` });
  }
}

/** A session tree could not be read: a child the parent links to is missing from the store. */
export class ChildSessionMissingError extends SpineError {
  constructor(options: { parentId: string; childId: string; cause?: unknown }) {
    super({
      code: 'SESSION_NOT_FOUND',
      message: `session ${options.parentId} links to child session ${options.childId}, which is not in the store; copy the child's file next to the parent's`,
      cause: options.cause,
    });
  }
}
