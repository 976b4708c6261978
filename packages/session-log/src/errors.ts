import { SpineError } from '@spine/protocol/core';

/**
 * Thrown when an appended event is malformed (a body that is not JSON, fails its schema, or bad
 * options), or when a call names what the session does not have (a projection, a fork point):
 * then no event was refused, and the error is built with its own `message`.
 */
export class InvalidEventError extends SpineError {
  /** The event type that was refused ('' when no event was: the call itself was wrong). */
  readonly eventType: string;

  constructor(options: { type: string; reason: string } | { message: string }) {
    super({
      code: 'INVALID_EVENT',
      message:
        'message' in options
          ? options.message
          : `Refused ${options.type} event: ${options.reason}. Fix the event and append it again; the log is unchanged`,
    });
    this.eventType = 'type' in options ? options.type : '';
  }
}

/** Thrown when an event type is neither built in nor registered, or a surface-bearing type is unknown on open. */
export class UnknownEventTypeError extends SpineError {
  /** The unknown type. */
  readonly eventType: string;

  constructor(options: { type: string; where?: string }) {
    const where = options.where ? ` in ${options.where}` : '';
    super({
      code: 'UNKNOWN_EVENT_TYPE',
      message: `Unknown event type "${options.type}"${where}; register it with session.registerEventType({ type, surface, project }) or pass it in { eventTypes } when opening`,
    });
    this.eventType = options.type;
  }
}

/** Thrown when a surface op is illegal: missing region, non-contiguous, splitting a tool pair, orphan result. */
export class IllegalSurfaceOpError extends SpineError {
  constructor(options: { type: string; reason: string }) {
    super({
      code: 'ILLEGAL_SURFACE_OP',
      message: `Illegal surface op on ${options.type}: ${options.reason}. The log is unchanged`,
    });
  }
}

/** Thrown when another writer holds the session's lock. */
export class SessionLockedError extends SpineError {
  /** The pid holding the lock, when known. */
  readonly pid: number | undefined;

  constructor(options: { sessionId: string; path?: string; pid?: number }) {
    const by = options.pid === undefined ? 'another writer' : `pid ${options.pid}`;
    const lock = options.path ? ` (lock ${options.path})` : '';
    super({
      code: 'SESSION_LOCKED',
      message: `Session ${options.sessionId} is locked by ${by}${lock}; stop that writer, or open with { readOnly: true }`,
    });
    this.pid = options.pid;
  }
}

/** Thrown when a session id does not exist in the store. */
export class SessionNotFoundError extends SpineError {
  constructor(options: { sessionId: string; where?: string }) {
    const where = options.where ? ` in ${options.where}` : '';
    super({
      code: 'SESSION_NOT_FOUND',
      message: `Session ${options.sessionId} not found${where}; check the id, or list sessions with store.list()`,
    });
  }
}

/** Thrown when creating a session whose id already exists. */
export class SessionExistsError extends SpineError {
  constructor(options: { sessionId: string }) {
    super({
      code: 'SESSION_EXISTS',
      message: `Session ${options.sessionId} already exists; open it with Session.open, or create with another id`,
    });
  }
}

/** Thrown when stored data is damaged beyond a torn last write; names the file and line. */
export class SessionCorruptError extends SpineError {
  /** The file (or database) holding the damage. */
  readonly file: string;
  /** The 1-based line (or seq) of the damage. */
  readonly line: number;

  constructor(options: { file: string; line: number; reason: string; cause?: unknown }) {
    super({
      code: 'SESSION_CORRUPT',
      message: `${options.file}:${options.line}: ${options.reason}. Nothing was changed; repair or move that line by hand (committed events are never dropped automatically)`,
      cause: options.cause,
    });
    this.file = options.file;
    this.line = options.line;
  }
}

/** Thrown when appending to a closed or read-only session. */
export class SessionClosedError extends SpineError {
  constructor(options: { sessionId: string; reason: 'closed' | 'read-only' | 'failed' }) {
    const advice =
      options.reason === 'read-only'
        ? 'it was opened with { readOnly: true }; open it without readOnly to append'
        : options.reason === 'failed'
          ? 'a previous write failed; reopen the session to continue'
          : 'it was closed; open it again to append';
    super({
      code: 'SESSION_CLOSED',
      message: `Session ${options.sessionId} cannot append: ${advice}`,
    });
  }
}

/** Thrown when a session's format version cannot be handled. */
export class UnsupportedFormatError extends SpineError {
  constructor(options: { sessionId: string; formatVersion: unknown; reason: string }) {
    super({
      code: 'UNSUPPORTED_FORMAT',
      message: `Session ${options.sessionId} has formatVersion ${String(options.formatVersion)}: ${options.reason}`,
    });
  }
}

/**
 * Thrown when a store backend cannot be loaded or used: its library is missing, or the file
 * system (or database) refused to look for, create, open, lock, read or write a session's file.
 * A refused file keeps the operating system's code in `systemCode` and its error as `cause`.
 */
export class StoreUnavailableError extends SpineError {
  /** The file or folder that was refused, when the failure is about one. */
  readonly path: string | undefined;
  /** The code the file system or database gave (`EACCES`, `EROFS`, `SQLITE_CANTOPEN`), when known. */
  readonly systemCode: string | undefined;

  constructor(options: { message: string; cause?: unknown; path?: string; systemCode?: string }) {
    super({ code: 'STORE_UNAVAILABLE', message: options.message, cause: options.cause });
    this.path = options.path;
    this.systemCode = options.systemCode;
  }
}

/** Thrown by `SessionStore.readRange` (and the session's range reads) for a malformed range. */
export class InvalidRangeError extends SpineError {
  constructor(options: { reason: string }) {
    super({
      code: 'INVALID_RANGE',
      message: `Invalid seq range: ${options.reason}. Pass { fromSeq } as an integer ≥ 1 and toSeq/limit as integers`,
    });
  }
}
