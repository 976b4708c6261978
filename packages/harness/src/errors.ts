import { ModelError, SpineError } from '@spine/protocol';

/**
 * Thrown when a configuration file, variable or flag does not match the schema. The message
 * names the file (or variable, or flag), the key and the expected shape.
 */
export class InvalidConfigError extends SpineError {
  /** Where the bad value came from: a file path, `env SPINE_…` or `--flag`. */
  readonly source: string;
  /** The dotted key that is wrong (empty for the whole document). */
  readonly key: string;

  constructor(options: { source: string; key: string; expected: string; cause?: unknown }) {
    // "the document is not valid JSON (…)"; `key "sandbox": expected one of …`.
    const where =
      options.key !== ''
        ? `key "${options.key}": `
        : options.expected.startsWith('is ')
          ? 'the document '
          : 'the document: ';
    super({
      code: 'INVALID_CONFIG',
      message: `Invalid configuration in ${options.source}: ${where}${options.expected}. Fix the value (see \`spine config --effective\` for every key and its layer).`,
      cause: options.cause,
    });
    this.source = options.source;
    this.key = options.key;
  }
}

/** Thrown for a command line that cannot be acted on (unknown session, bad `--model`). */
export class UsageError extends SpineError {
  constructor(options: { message: string; cause?: unknown }) {
    super({ code: 'INVALID_CONFIG', message: options.message, cause: options.cause });
  }
}

/** Thrown when a session id names no stored session. */
export class SessionNotFoundError extends SpineError {
  /** The id that was asked for. */
  readonly sessionId: string;

  constructor(options: { sessionId: string; dir: string }) {
    super({
      code: 'SESSION_NOT_FOUND',
      message: `No session "${options.sessionId}" in ${options.dir}; run \`spine sessions --session-dir ${options.dir}\` to list the ids, or pass the right --session-dir.`,
    });
    this.sessionId = options.sessionId;
  }
}

/** Thrown before a session starts when the provider's key variable is not set (exit code 3). */
export class MissingKeyError extends ModelError {
  constructor(options: { provider: string; variable: string }) {
    super({
      code: 'AUTH_FAILED',
      provider: options.provider,
      retryable: false,
      message: `${options.variable} is not set: export ${options.variable}=<your ${options.provider} key> or pass --api-key-env NAME (\`spine demo\` runs with no key).`,
    });
  }
}

/**
 * Thrown when a session to be written is held by another process (another `spine run`,
 * `resume` or interactive session). Exit code 2.
 */
export class SessionInUseError extends SpineError {
  /** The session id. */
  readonly sessionId: string;
  /** The pid holding the session, when known. */
  readonly pid: number | undefined;

  constructor(options: { sessionId: string; dir: string; pid?: number; cause?: unknown }) {
    const holder =
      options.pid === undefined
        ? 'another spine process'
        : `another spine process (pid ${options.pid})`;
    const stop =
      options.pid === undefined
        ? ''
        : `, or stop pid ${options.pid} if it hangs (\`kill ${options.pid}\`: its turn ends cleanly and can be resumed)`;
    super({
      code: 'SESSION_LOCKED',
      message: `Session ${options.sessionId} is in use by ${holder}. Wait for it to finish and run the command again; watch what it does with \`spine show ${options.sessionId} --session-dir ${options.dir}\`${stop}.`,
      cause: options.cause,
    });
    this.sessionId = options.sessionId;
    this.pid = options.pid;
  }
}

/**
 * A `user-prompt-submit` hook blocked the prompt: no turn ran. The message carries the hook's
 * reason; `spine run` exits 4 (denied).
 */
export class PromptBlockedError extends SpineError {
  constructor(options: { reason: string }) {
    super({
      code: 'PROMPT_BLOCKED',
      message: `a user-prompt-submit hook blocked the prompt: ${options.reason}; change the prompt or the hook`,
    });
  }
}
