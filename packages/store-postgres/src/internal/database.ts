// Loading `pg` lazily (an optional peer), making the pool, quoting identifiers and describing a
// connection without its password.

import { SpineError } from '@spine/protocol';
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { StoreConfigError, StorePermissionError, StoreUnavailableError } from '../errors.js';

/** Where a store connects: a URL (credentials from it or from the PG* variables) and a schema. */
export interface ConnectionOptions {
  /** `postgres://user@host:port/db`; the password may come from `PGPASSWORD`. Default: PG* env. */
  connectionString?: string;
  /** The schema holding Spine's tables (default `spine`). */
  schema?: string;
  /** Connections of the pool the store makes (default 10). */
  maxConnections?: number;
  /** How long opening one connection may take, in ms (default 10,000). */
  connectTimeoutMs?: number;
  /**
   * How long one statement may take, in ms (default 30,000): sent as `statement_timeout`, and
   * enforced by the client too (one second later), so a frozen server or a network partition
   * fails the statement instead of hanging; the connection is then discarded.
   */
  statementTimeoutMs?: number;
}

/** The documented default bounds of every wait on the database, in ms. */
export const DEFAULT_BOUNDS = {
  connectTimeoutMs: 10_000,
  statementTimeoutMs: 30_000,
  writeAheadTimeoutMs: 15_000,
  reconnectMs: 30_000,
} as const;

/** A pool and whether we must end it. */
export interface Database {
  pool: Pool;
  owned: boolean;
  schema: string;
  /** The connection, described without credentials (for messages). */
  where: string;
}

type PgModule = typeof import('pg');

let loaded: Promise<PgModule> | undefined;

/** Imports `pg` once, with an error saying how to install it. */
export function loadPg(): Promise<PgModule> {
  loaded ??= import('pg').then(
    (module) => ((module as unknown as { default?: PgModule }).default ?? module) as PgModule,
    (cause: unknown) => {
      loaded = undefined;
      throw new StoreUnavailableError({
        message: 'Cannot load pg; npm i pg@8 to use the PostgreSQL store, or use the jsonl store',
        cause,
      });
    },
  );
  return loaded;
}

/** `postgres://user@host:port/db` without password or query string. */
export function describeConnection(connectionString: string | undefined): string {
  if (!connectionString) {
    const env = process.env;
    return `postgres://${env.PGUSER ?? ''}@${env.PGHOST ?? 'localhost'}:${env.PGPORT ?? '5432'}/${env.PGDATABASE ?? ''}`;
  }
  try {
    const url = new URL(connectionString);
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Checks a schema name (letters, digits, underscore; at most 63) so it can be quoted safely. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new StoreUnavailableError({
      message: `Schema name ${JSON.stringify(schema)} is not allowed; use letters, digits and _ (at most 63, not starting with a digit)`,
    });
  }
  return schema;
}

/** Opens (lazily) the pool `options` describe. */
export async function openDatabase(options: ConnectionOptions): Promise<Database> {
  const schema = checkSchemaName(options.schema ?? 'spine');
  const where = describeConnection(options.connectionString);
  const pg = await loadPg();
  // Idle connections do not keep a finished command's process alive.
  const config: PoolConfig = { ...clientBounds(options), max: options.maxConnections ?? 10 };
  config.allowExitOnIdle = true;
  if (options.connectionString) config.connectionString = options.connectionString;
  const pool = new pg.Pool(config);
  // An idle client that loses its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  translateQueries(pool, where);
  return { pool, owned: true, schema, where };
}

/** The pg client settings that bound every wait (see {@link ConnectionOptions}). */
export function clientBounds(options: ConnectionOptions): {
  connectionTimeoutMillis: number;
  statement_timeout: number;
  query_timeout: number;
  keepAlive: boolean;
} {
  const statement = positive(options.statementTimeoutMs, DEFAULT_BOUNDS.statementTimeoutMs);
  return {
    connectionTimeoutMillis: positive(options.connectTimeoutMs, DEFAULT_BOUNDS.connectTimeoutMs),
    statement_timeout: statement,
    query_timeout: statement + 1000,
    keepAlive: true,
  };
}

/** `value` when it is a positive integer, else `fallback`. */
export function positive(value: number | undefined, fallback: number): number {
  return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : fallback;
}

/**
 * Makes `pool.query` (the promise form, the only one Spine uses) reject with typed errors:
 * {@link StorePermissionError}, {@link StoreConfigError} or {@link StoreUnavailableError}.
 */
function translateQueries(pool: Pool, where: string): void {
  const raw = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) =>
    raw(...args).catch((error: unknown) => {
      throw translate(error, where);
    });
}

/** Runs `work` inside BEGIN … COMMIT on one client, rolling back when it throws. */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await connect(pool);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    const lost = isConnectionError(error);
    if (!lost) await client.query('ROLLBACK').catch(() => {});
    // A client whose connection broke or timed out is discarded, never reused.
    client.release(lost);
    throw translate(error, 'PostgreSQL');
  }
}

/** Takes a client from the pool, turning a connection failure into a clear error. */
export async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (cause) {
    const typed = translate(cause, 'PostgreSQL');
    throw typed === cause ? unavailable(cause) : typed;
  }
}

/** Wraps a connection-level failure; the message never contains the URL's password. */
export function unavailable(cause: unknown): StoreUnavailableError {
  const code = (cause as { code?: string } | null)?.code;
  const text = cause instanceof Error ? cause.message : String(cause);
  return new StoreUnavailableError({
    message: `Cannot reach PostgreSQL (${code ?? 'error'}: ${text}); check the store URL and that the server runs`,
    cause,
  });
}

/** The SQLSTATE of a pg error, if any. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

const CONNECTION_STATES = /^(08|57P0|57014|53300|53400)/;

/**
 * True for a failure of the connection rather than of the statement: a socket error (ECONNREFUSED,
 * ECONNRESET …), a client-side timeout, a terminated connection, SQLSTATE class 08, an admin
 * shutdown (57P01–57P03), a statement past `statement_timeout` (57014) or too many connections.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (SpineError.isInstance(error)) return false;
  const state = sqlState(error);
  if (state) return CONNECTION_STATES.test(state);
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' ||
    /timeout|terminated|not queryable|Connection|ECONN|EPIPE|closed/i.test(message)
  );
}

/**
 * A typed error for a pg failure: permission → {@link StorePermissionError}, bad configuration →
 * {@link StoreConfigError}, lost connection → {@link StoreUnavailableError}; anything else as is.
 */
export function translate(error: unknown, where: string): unknown {
  if (SpineError.isInstance(error)) return error;
  const state = sqlState(error);
  const text = error instanceof Error ? error.message : String(error);
  if (state === '42501' || state === '42000') {
    return new StorePermissionError({ sqlState: state, detail: text, where, cause: error });
  }
  if (state === '28P01' || state === '28000' || state === '3D000') {
    return new StoreConfigError({
      reason: `${text} (SQLSTATE ${state}) at ${where}`,
      cause: error,
    });
  }
  if (state === '22021' || state === '22P05') {
    return new StoreConfigError({
      reason: `PostgreSQL text cannot hold that value (${text}); remove NUL characters`,
      cause: error,
    });
  }
  if (isConnectionError(error)) return unavailable(error);
  return error;
}
