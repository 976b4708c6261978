// The schema, as numbered migrations applied explicitly (`spine store migrate`), never at open.
// Each migration runs once, in order, in one transaction, under an advisory lock so two
// migrators cannot interleave.

import type { Pool } from 'pg';
import { SchemaNotMigratedError } from './errors.js';
import {
  type ConnectionOptions,
  inTransaction,
  openDatabase,
  sqlState,
} from './internal/database.js';

/** One schema change: its version, what it does, and its SQL for a given (quoted) schema. */
export interface PostgresMigration {
  /** 1, 2, 3… in order; a database records each version it applied. */
  readonly version: number;
  /** What the migration does, for `spine store migrate`'s output. */
  readonly description: string;
  /** The statements, given the schema name already quoted (`"spine"`). */
  sql(schema: string): string;
}

/** Every migration of this package's schema, oldest first. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = Object.freeze([
  {
    version: 1,
    description:
      'sessions (header, index, lease), events keyed by (session_id, seq), snapshots, tasks',
    sql: (s: string) => `
      CREATE TABLE ${s}.spine_sessions (
        id text PRIMARY KEY,
        header text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_seq bigint NOT NULL,
        size_bytes bigint NOT NULL DEFAULT 0,
        lease_owner text,
        lease_host text,
        lease_pid integer,
        lease_token bigint NOT NULL DEFAULT 0,
        lease_expires_at timestamptz);
      CREATE INDEX spine_sessions_updated ON ${s}.spine_sessions (updated_at DESC, id);
      CREATE TABLE ${s}.spine_events (
        session_id text NOT NULL REFERENCES ${s}.spine_sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (session_id, seq));
      CREATE TABLE ${s}.spine_snapshots (
        session_id text NOT NULL REFERENCES ${s}.spine_sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        data text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (session_id));
      -- Snapshots are large and read whole: stored uncompressed, out of line (no pglz on open).
      ALTER TABLE ${s}.spine_snapshots ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE FUNCTION ${s}.spine_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('spine_events', json_build_object(
            'schema', TG_TABLE_SCHEMA, 'session', session_id, 'seq', max(seq))::text)
            FROM inserted GROUP BY session_id;
          RETURN NULL;
        END $$;
      CREATE TRIGGER spine_events_notify AFTER INSERT ON ${s}.spine_events
        REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT
        EXECUTE FUNCTION ${s}.spine_notify_events();
      CREATE TABLE ${s}.spine_tasks (
        id text PRIMARY KEY,
        session_id text NOT NULL UNIQUE,
        spec text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
        worker text,
        token bigint NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        lease_expires_at timestamptz,
        result text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp());
      CREATE INDEX spine_tasks_claim ON ${s}.spine_tasks (status, created_at);`,
  },
  {
    version: 2,
    description:
      'a per-row SHA-256 chain over events (hash = sha256(previous hash ‖ session id, seq, data)), existing rows chained',
    sql: (s: string) => `
      ALTER TABLE ${s}.spine_events ADD COLUMN hash bytea;
      CREATE FUNCTION ${s}.spine_chain_events() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE previous bytea := '\\x';
        BEGIN
          IF NEW.seq > 1 THEN
            SELECT e.hash INTO previous FROM ${s}.spine_events e
             WHERE e.session_id = NEW.session_id AND e.seq = NEW.seq - 1;
          END IF;
          NEW.hash := sha256(coalesce(previous, '\\x'::bytea) || convert_to(
            NEW.session_id || chr(10) || NEW.seq::text || chr(10) || NEW.data, 'UTF8'));
          RETURN NEW;
        END $$;
      DO $$
        DECLARE r record; previous bytea; current_session text;
        BEGIN
          FOR r IN SELECT session_id, seq, data FROM ${s}.spine_events ORDER BY session_id, seq LOOP
            IF current_session IS DISTINCT FROM r.session_id THEN
              previous := '\\x'::bytea;
              current_session := r.session_id;
            END IF;
            previous := sha256(previous || convert_to(
              r.session_id || chr(10) || r.seq::text || chr(10) || r.data, 'UTF8'));
            UPDATE ${s}.spine_events SET hash = previous
             WHERE session_id = r.session_id AND seq = r.seq;
          END LOOP;
        END $$;
      CREATE TRIGGER spine_events_chain BEFORE INSERT ON ${s}.spine_events
        FOR EACH ROW EXECUTE FUNCTION ${s}.spine_chain_events();`,
  },
  {
    version: 3,
    description:
      'blobs: image bytes stored once per session by SHA-256, referenced from events by hash',
    sql: (s: string) => `
      CREATE TABLE ${s}.spine_blobs (
        session_id text NOT NULL REFERENCES ${s}.spine_sessions (id) ON DELETE CASCADE,
        sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        data bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (session_id, sha256));
      -- Images are compressed already: stored out of line, never pglz'd again.
      ALTER TABLE ${s}.spine_blobs ALTER COLUMN data SET STORAGE EXTERNAL;`,
  },
  {
    version: 4,
    description:
      'snapshots stored in parts (spine_snapshot_parts) and read as small rows; existing snapshots stay readable whole',
    // A snapshot written before this keeps its text in spine_snapshots.data (parts NULL) and is
    // read from there; the next one the session writes goes to parts (data NULL). Exactly one of
    // the two is set. Nothing is back-filled: a snapshot is rewritten as its session goes on.
    sql: (s: string) => `
      ALTER TABLE ${s}.spine_snapshots ALTER COLUMN data DROP NOT NULL;
      ALTER TABLE ${s}.spine_snapshots ADD COLUMN parts integer;
      ALTER TABLE ${s}.spine_snapshots ADD CONSTRAINT spine_snapshots_whole_or_parts
        CHECK ((data IS NULL) <> (parts IS NULL));
      CREATE TABLE ${s}.spine_snapshot_parts (
        session_id text NOT NULL REFERENCES ${s}.spine_snapshots (session_id) ON DELETE CASCADE,
        part integer NOT NULL CHECK (part >= 1),
        data text NOT NULL,
        PRIMARY KEY (session_id, part));
      -- Read whole on every open, like the snapshot was: uncompressed, out of line.
      ALTER TABLE ${s}.spine_snapshot_parts ALTER COLUMN data SET STORAGE EXTERNAL;`,
  },
]);

/** The default statement bound of {@link migratePostgresStore} (one hour): back-fills take long. */
export const MIGRATION_STATEMENT_TIMEOUT_MS = 3_600_000;

/** The schema version this package reads and writes. */
export const POSTGRES_SCHEMA_VERSION: number = POSTGRES_MIGRATIONS.length;

/** What {@link migratePostgresStore} did. */
export interface MigrateResult {
  /** The schema migrated. */
  schema: string;
  /** The version before. */
  from: number;
  /** The version now. */
  to: number;
  /** The migrations applied now, in order (empty when the schema was current). */
  applied: Array<{
    /** The migration's version. */
    version: number;
    /** What it did. */
    description: string;
  }>;
}

/** The version recorded in `schema` (0 when it has no Spine tables). */
export async function schemaVersion(pool: Pool, schema: string): Promise<number> {
  try {
    const result = await pool.query<{ version: number | null }>(
      `SELECT max(version)::int AS version FROM "${schema}".spine_schema_migrations`,
    );
    return result.rows[0]?.version ?? 0;
  } catch (error) {
    if (sqlState(error) === '42P01' || sqlState(error) === '3F000') return 0;
    throw error;
  }
}

/**
 * Throws unless `schema` is exactly at {@link POSTGRES_SCHEMA_VERSION}.
 *
 * @throws a {@link SchemaNotMigratedError} naming `spine store migrate` when it is older or
 *   missing.
 */
export async function assertMigrated(pool: Pool, schema: string): Promise<void> {
  const found = await schemaVersion(pool, schema);
  if (found !== POSTGRES_SCHEMA_VERSION) {
    throw new SchemaNotMigratedError({ schema, found, required: POSTGRES_SCHEMA_VERSION });
  }
}

/**
 * Applies the migrations a database lacks, each once, in order, in one transaction. Safe to run
 * from several machines at once (an advisory lock serialises them).
 *
 * @throws a {@link SchemaNotMigratedError} when the schema is newer than this package.
 * @throws a {@link StoreUnavailableError} when the server cannot be reached.
 * @example
 * ```ts
 * const result = await migratePostgresStore({ connectionString: process.env.SPINE_STORE_URL });
 * console.log(`schema ${result.schema}: ${result.from} → ${result.to}`);
 * ```
 */
export async function migratePostgresStore(options: ConnectionOptions): Promise<MigrateResult> {
  // A migration back-fills whole tables: its statements get an hour unless told otherwise.
  const database = await openDatabase({
    ...options,
    statementTimeoutMs: options.statementTimeoutMs ?? MIGRATION_STATEMENT_TIMEOUT_MS,
  });
  const { schema } = database;
  const quoted = `"${schema}"`;
  try {
    return await inTransaction(database.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`spine:${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${quoted}.spine_schema_migrations (
           version integer PRIMARY KEY, description text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
      );
      const found = await client.query<{ version: number | null }>(
        `SELECT max(version)::int AS version FROM ${quoted}.spine_schema_migrations`,
      );
      const from = found.rows[0]?.version ?? 0;
      if (from > POSTGRES_SCHEMA_VERSION) {
        throw new SchemaNotMigratedError({
          schema,
          found: from,
          required: POSTGRES_SCHEMA_VERSION,
        });
      }
      const applied: MigrateResult['applied'] = [];
      for (const migration of POSTGRES_MIGRATIONS) {
        if (migration.version <= from) continue;
        await client.query(migration.sql(quoted));
        await client.query(
          `INSERT INTO ${quoted}.spine_schema_migrations (version, description) VALUES ($1, $2)`,
          [migration.version, migration.description],
        );
        applied.push({ version: migration.version, description: migration.description });
      }
      return { schema, from, to: Math.max(from, POSTGRES_SCHEMA_VERSION), applied };
    });
  } finally {
    if (database.owned) await database.pool.end();
  }
}
