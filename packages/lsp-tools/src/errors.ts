import { SpineError } from '@spine/protocol';

/**
 * Thrown when no language server can serve a file: none is configured for its extension, or
 * the configured command is not installed.
 */
export class LspUnavailableError extends SpineError {
  /** The language or file extension that has no server. */
  readonly language: string;

  constructor(options: { language: string; reason: string }) {
    super({ code: 'LSP_UNAVAILABLE', message: options.reason });
    this.language = options.language;
  }
}

/**
 * Thrown when a language server fails: it did not start, crashed, answered with an error or
 * did not answer in time.
 */
export class LspFailedError extends SpineError {
  /** The id of the server that failed, for example `typescript`. */
  readonly serverId: string;

  constructor(options: { serverId: string; message: string; cause?: unknown }) {
    super({ code: 'LSP_FAILED', message: options.message, cause: options.cause });
    this.serverId = options.serverId;
  }
}

/** Thrown when a path given to an LSP tool lies outside the workspace or does not exist. */
export class LspPathRefusedError extends SpineError {
  /** The path as it was given. */
  readonly path: string;

  constructor(options: { path: string; reason: string }) {
    super({ code: 'PATH_REFUSED', message: options.reason });
    this.path = options.path;
  }
}

/**
 * Thrown when a line or column lies outside the file as it is on disk now. The message names
 * the file's length, so the caller can correct the position.
 */
export class LspPositionError extends SpineError {
  /** The file as it was given. */
  readonly path: string;

  constructor(options: { path: string; reason: string }) {
    super({ code: 'INVALID_TOOL_ARGUMENTS', message: options.reason });
    this.path = options.path;
  }
}

/** Thrown when the caller's AbortSignal fires while a language server request is pending. */
export class LspAbortedError extends SpineError {
  constructor(options: { method: string }) {
    super({
      code: 'ABORTED',
      message: `The ${options.method} request was cancelled by its AbortSignal; ask again if the answer is still needed`,
    });
  }
}
