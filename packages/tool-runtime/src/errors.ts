import { SpineError } from '@spine/protocol';

/** Thrown when a path from the model or the user would leave the workspace or is otherwise unsafe. */
export class PathRefusedError extends SpineError {
  /** The path as it was given. */
  readonly path: string;

  constructor(options: { path: string; reason: string }) {
    super({
      code: 'PATH_REFUSED',
      message: `Path refused: ${JSON.stringify(options.path.slice(0, 200))} ${options.reason}. Use a path inside the workspace (relative to its root).`,
    });
    this.path = options.path;
  }
}

/** Thrown when a file changed on disk since the agent last read it (compare-and-swap failed). */
export class StaleFileError extends SpineError {
  /** Workspace-relative path of the file. */
  readonly path: string;

  constructor(options: { path: string; neverRead?: boolean }) {
    super({
      code: 'STALE_FILE',
      message: options.neverRead
        ? `${options.path} exists but has not been read in this session; read it first, then retry the change.`
        : `${options.path} changed on disk since you last read it; read it again, then redo the change against the current content.`,
    });
    this.path = options.path;
  }
}

/** Thrown when a shell command needs an OS sandbox and none is available. */
export class SandboxUnavailableError extends SpineError {
  constructor(options: { mode: string; detail?: string }) {
    super({
      code: 'SANDBOX_UNAVAILABLE',
      message: `No OS sandbox is available to run shell commands in ${options.mode} mode${options.detail ? ` (${options.detail})` : ''}. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or, if you accept running commands without isolation, switch the sandbox to danger-full-access.`,
    });
  }
}

/** Thrown when a tool definition is malformed (bad name, schema that does not compile, duplicate). */
export class InvalidToolDefinitionError extends SpineError {
  constructor(options: { name: string; reason: string; cause?: unknown }) {
    super({
      code: 'INVALID_CONFIG',
      message: `Tool ${JSON.stringify(options.name)} cannot be registered: ${options.reason}. Fix the tool definition.`,
      cause: options.cause,
    });
  }
}

/** Thrown when runtime options are invalid (unknown approval policy, relative cwd …). */
export class InvalidRuntimeOptionsError extends SpineError {
  constructor(options: { reason: string }) {
    super({ code: 'INVALID_CONFIG', message: `Invalid tool runtime options: ${options.reason}.` });
  }
}

/** Thrown when a background job would exceed the limit of jobs running at once. */
export class JobLimitError extends SpineError {
  /** The limit in force. */
  readonly limit: number;

  constructor(options: { limit: number; running: readonly string[] }) {
    super({
      code: 'JOB_LIMIT',
      message: `${options.limit} background jobs are already running (${options.running.join(', ')}), the limit; stop one with job_kill or wait for one to exit, then start the job again.`,
    });
    this.limit = options.limit;
  }
}

/** Thrown when a job id names no background job of this session. */
export class JobNotFoundError extends SpineError {
  /** The id as given. */
  readonly id: string;

  constructor(options: { id: string; known: readonly string[] }) {
    super({
      code: 'JOB_NOT_FOUND',
      message: `No background job ${JSON.stringify(options.id.slice(0, 100))}; ${options.known.length > 0 ? `the jobs are ${options.known.join(', ')}` : 'no job was started in this session'}.`,
    });
    this.id = options.id;
  }
}
