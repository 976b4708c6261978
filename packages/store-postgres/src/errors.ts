import { SpineError } from '@spine/protocol';

/** Thrown when another writer holds the session's lease (it has not expired). */
export class SessionLockedError extends SpineError {
  /** The lease holder, as it recorded itself (`host:pid:nonce`). */
  readonly owner: string | undefined;

  constructor(options: { sessionId: string; owner?: string; expiresAt?: string }) {
    const by = options.owner ? `writer ${options.owner}` : 'another writer';
    const until = options.expiresAt ? ` until ${options.expiresAt} unless it renews` : '';
    super({
      code: 'SESSION_LOCKED',
      message: `Session ${options.sessionId} is leased by ${by}${until}; stop that writer, wait for the lease to expire, or open with { readOnly: true }`,
    });
    this.owner = options.owner;
  }
}

/**
 * Thrown by a writer whose lease was taken over: its fencing token is no longer the session's, so
 * the database refused its append (nothing of that batch was stored).
 */
export class LeaseLostError extends SpineError {
  /** The fencing token this writer held. */
  readonly token: number;

  constructor(options: { sessionId: string; token: number; owner?: string | null }) {
    const now = options.owner ? `writer ${options.owner} holds it now` : 'nobody holds it now';
    super({
      code: 'SESSION_LOCKED',
      message: `Session ${options.sessionId}: this writer's lease (token ${options.token}) was taken over (${now}); its appends are refused. Reopen the session to continue from what is stored`,
    });
    this.token = options.token;
  }
}

/** Thrown when an append's seqs are already taken: another writer appended first. */
export class AppendConflictError extends SpineError {
  constructor(options: { sessionId: string; expectedLastSeq: number; storedLastSeq?: number }) {
    const stored =
      options.storedLastSeq === undefined ? '' : ` (the store is at seq ${options.storedLastSeq})`;
    super({
      code: 'SESSION_LOCKED',
      message: `Session ${options.sessionId}: expected to append after seq ${options.expectedLastSeq} but another writer appended first${stored}; nothing was written. Reopen the session to continue`,
    });
  }
}

/** Thrown when a session id does not exist in the store. */
export class SessionNotFoundError extends SpineError {
  constructor(options: { sessionId: string; where: string }) {
    super({
      code: 'SESSION_NOT_FOUND',
      message: `Session ${options.sessionId} not found in ${options.where}; check the id, or list sessions with store.list()`,
    });
  }
}

/** Thrown when creating a session whose id already exists. */
export class SessionExistsError extends SpineError {
  constructor(options: { sessionId: string }) {
    super({
      code: 'SESSION_EXISTS',
      message: `Session ${options.sessionId} already exists; open it, or create with another id`,
    });
  }
}

/** Thrown when appending through a closed, read-only or failed writer. */
export class SessionClosedError extends SpineError {
  constructor(options: { sessionId: string; reason: 'closed' | 'read-only'; cause?: unknown }) {
    const advice =
      options.reason === 'read-only'
        ? 'it was opened with { readOnly: true }; open it without readOnly to append'
        : 'it was closed; open it again to append';
    super({
      code: 'SESSION_CLOSED',
      message: `Session ${options.sessionId} cannot append: ${advice}`,
      cause: options.cause,
    });
  }
}

/** Thrown when a stored event is damaged; names the session and seq. Nothing is dropped. */
export class SessionCorruptError extends SpineError {
  constructor(options: { where: string; seq: number; reason: string; cause?: unknown }) {
    super({
      code: 'SESSION_CORRUPT',
      message: `${options.where}:${options.seq}: ${options.reason}. Nothing was changed; repair that row by hand (committed events are never dropped automatically)`,
      cause: options.cause,
    });
  }
}

/**
 * Thrown when the database schema is missing or older than this package needs. Migrations are
 * applied explicitly, never when a store opens.
 */
export class SchemaNotMigratedError extends SpineError {
  /** The version found (0 when the schema has no Spine tables). */
  readonly found: number;
  /** The version this package needs. */
  readonly required: number;

  constructor(options: { schema: string; found: number; required: number }) {
    const what =
      options.found > options.required
        ? `is at version ${options.found}, newer than this Spine understands (${options.required}); upgrade @spine/store-postgres`
        : `is at version ${options.found} but ${options.required} is needed; run \`spine store migrate --store <url>\` (or migratePostgresStore())`;
    super({
      code: 'STORE_UNAVAILABLE',
      message: `PostgreSQL schema "${options.schema}" ${what}`,
    });
    this.found = options.found;
    this.required = options.required;
  }
}

/** Thrown when `pg` cannot be loaded or the server cannot be reached; never shows a password. */
export class StoreUnavailableError extends SpineError {
  constructor(options: { message: string; cause?: unknown }) {
    super({ code: 'STORE_UNAVAILABLE', message: options.message, cause: options.cause });
  }
}

/** Thrown by `readRange` for a malformed range. */
export class InvalidRangeError extends SpineError {
  constructor(options: { reason: string }) {
    super({
      code: 'INVALID_RANGE',
      message: `Invalid seq range: ${options.reason}. Pass { fromSeq } as an integer ≥ 1 and toSeq/limit as integers`,
    });
  }
}

/** Thrown by `submit` for a task spec without a prompt or workspace. */
export class InvalidTaskError extends SpineError {
  constructor(options: { reason: string }) {
    super({
      code: 'INVALID_CONFIG',
      message: `Invalid task: ${options.reason}. Pass { prompt, workspace } (model and profile optional)`,
    });
  }
}

/** Thrown by `create` for a session id PostgreSQL text cannot hold exactly. */
export class InvalidSessionIdError extends SpineError {
  constructor(options: { reason: string }) {
    super({
      code: 'INVALID_EVENT',
      message: `Refused session id: ${options.reason}. Use an id of 1 to 1,024 characters without NUL or unpaired surrogates; the store is unchanged`,
    });
  }
}

/**
 * Thrown when the database role lacks a privilege Spine needs (SQLSTATE 42501 and kin): names
 * what was refused. Not an outage; retrying does not help until the role gets the grant.
 */
export class StorePermissionError extends SpineError {
  /** The SQLSTATE PostgreSQL answered (usually `42501`). */
  readonly sqlState: string;

  constructor(options: { sqlState: string; detail: string; where: string; cause?: unknown }) {
    super({
      code: 'INVALID_CONFIG',
      message: `PostgreSQL at ${options.where} refused: ${options.detail} (SQLSTATE ${options.sqlState}); grant the role the privilege named (USAGE on the schema, SELECT/INSERT/UPDATE on Spine's tables, CREATE to migrate) or use another role`,
      cause: options.cause,
    });
    this.sqlState = options.sqlState;
  }
}

/**
 * Thrown for a store configuration PostgreSQL cannot work with (an owner label with NUL, a
 * database that does not exist, failed authentication). Fix the options or the URL.
 */
export class StoreConfigError extends SpineError {
  constructor(options: { reason: string; cause?: unknown }) {
    super({
      code: 'INVALID_CONFIG',
      message: `Invalid PostgreSQL store configuration: ${options.reason}`,
      cause: options.cause,
    });
  }
}
