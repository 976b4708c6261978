// Loading `pg` lazily (an optional peer), making the pool, quoting identifiers and describing a
// connection without its password.

import type { Pool, PoolClient, PoolConfig } from 'pg';
import { StoreUnavailableError } from '../errors.js';

/** Where a store connects: a URL (credentials from it or from the PG* variables) and a schema. */
export interface ConnectionOptions {
  /** `postgres://user@host:port/db`; the password may come from `PGPASSWORD`. Default: PG* env. */
  connectionString?: string;
  /** The schema holding Spine's tables (default `spine`). */
  schema?: string;
  /** Connections of the pool the store makes (default 10). */
  maxConnections?: number;
}

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
  const config: PoolConfig = { max: options.maxConnections ?? 10, allowExitOnIdle: true };
  if (options.connectionString) config.connectionString = options.connectionString;
  const pool = new pg.Pool(config);
  // An idle client that loses its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return { pool, owned: true, schema, where };
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
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Takes a client from the pool, turning a connection failure into a clear error. */
export async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (cause) {
    throw unavailable(cause);
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
