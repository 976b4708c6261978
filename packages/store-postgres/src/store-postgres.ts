import type {
  OpenedSession,
  SessionEvent,
  SessionHeaderBody,
  SessionRange,
  SessionStore,
  SessionStoreOpenOptions,
  SessionSummary,
  StoredSnapshot,
} from '@spine/protocol';
import type { Pool, PoolClient } from 'pg';
import {
  InvalidSessionIdError,
  SessionExistsError,
  SessionNotFoundError,
  StoreConfigError,
} from './errors.js';
import {
  createNotifyListener,
  type FollowOptions,
  followEvents,
  type NotifyListener,
} from './follow.js';
import { readBlobs } from './internal/blobs.js';
import {
  type ConnectionOptions,
  checkSchemaName,
  clientBounds,
  type Database,
  DEFAULT_BOUNDS,
  inTransaction,
  loadPg,
  openDatabase,
  positive,
  sqlState,
  translate,
} from './internal/database.js';
import { acquireLease, newHolder } from './internal/lease.js';
import { checkRange, pageRange, readEvents } from './internal/read.js';
import { readSnapshotParts } from './internal/snapshots.js';
import { createSyncChannel, type SyncChannel } from './internal/sync-channel.js';
import { createWriter } from './internal/writer.js';
import { assertMigrated } from './migrations.js';

/** The default lease length: a writer that stops renewing loses its session this long after. */
export const DEFAULT_LEASE_MS = 30_000;

/** Options of {@link createPostgresStore}. */
export interface PostgresStoreOptions extends ConnectionOptions {
  /**
   * How long a writer's lease lasts without renewal (renewed every third of it while open, and
   * by every append). Another process may take the session over once it expires. Default 30 s.
   */
  leaseMs?: number;
  /** A label for this process in lease rows and task lists (default `host:pid`). */
  owner?: string;
  /**
   * Event types whose `append()` returns only once the event is committed, because what follows
   * it at once is a side effect (default `['tool/started']`: the tool runs right after it, and
   * crash recovery must know it may have run). Other appends are sent at once and acknowledged
   * by `flush()`.
   */
  durableTypes?: readonly string[];
  /**
   * How long a write-ahead append (`durableTypes`) may block the caller, in ms (default 15,000):
   * the statement, with reconnects, must commit within it or `append()` throws
   * `StoreUnavailableError`. It is the one synchronous wait the store ever makes.
   */
  writeAheadTimeoutMs?: number;
  /**
   * How long an asynchronous append keeps retrying after a lost connection, reconnecting with
   * backoff (50 ms doubling to 1 s), in ms (default 30,000). Past it `flush()` throws
   * `StoreUnavailableError`; reopen the session to continue.
   */
  reconnectMs?: number;
}

/** One line of {@link PostgresStore.list}, with who holds the session's lease right now. */
export interface PostgresSessionSummary extends SessionSummary {
  /** The live lease holder (`host:pid:n`), when a writer has the session open. */
  leasedBy?: string;
}

/** A PostgreSQL `SessionStore` that can also follow sessions and close its pool. */
export interface PostgresStore extends SessionStore {
  /** The schema holding the tables. */
  readonly schema: string;
  /** Sessions, most recently updated first, with the live lease holder of each. */
  list(options?: { limit?: number }): Promise<PostgresSessionSummary[]>;
  /**
   * The live lease holder of `sessionId` (`host:pid:n`), or undefined when no writer holds it
   * (closed, a crashed writer's lease expired, or no such session): one row read, for a follower
   * that waits for a session's writer to go.
   */
  leaseHolder(sessionId: string): Promise<string | undefined>;
  /**
   * Every event of `sessionId` after `afterSeq` (default 0), in seq order, as it is committed:
   * LISTEN/NOTIFY wakes the follower and it reads by seq, so a dropped notification costs
   * latency (at most `pollMs`), never an event. Ends when `signal` aborts.
   */
  follow(sessionId: string, options?: FollowOptions): AsyncIterable<SessionEvent>;
  /** Ends the store's connection pool. Close sessions first. */
  close(): Promise<void>;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `id` cannot be a session id here (text columns hold no NUL and only well-formed UTF-16). */
function idProblem(id: string): string | undefined {
  if (typeof id !== 'string' || id.length === 0 || id.length > 1024)
    return 'it must be 1 to 1,024 characters';
  if (id.includes('\u0000')) return 'it contains NUL';
  if (LONE_SURROGATE.test(id)) return 'it contains an unpaired surrogate';
  return undefined;
}

/**
 * Creates a store keeping sessions in PostgreSQL: events keyed by (session_id, seq), one writer
 * per session across machines through a lease with a fencing token, live followers. The schema
 * must be migrated first ({@link migratePostgresStore} or `spine store migrate`); `pg` is an
 * optional peer dependency, loaded on first use.
 *
 * @throws a {@link StoreUnavailableError} at once for a schema name that is not a plain identifier.
 * @throws a {@link SchemaNotMigratedError} from its methods when the schema is missing or outdated.
 * @throws a {@link StoreUnavailableError} from its methods when pg is missing or the server
 *   unreachable.
 * @example
 * ```ts
 * import { createPostgresStore } from '@spine/store-postgres';
 * const store = createPostgresStore({ connectionString: process.env.SPINE_STORE_URL });
 * const session = await Session.create({ store, title: 'shared' });
 * ```
 */
export function createPostgresStore(options: PostgresStoreOptions = {}): PostgresStore {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (options.owner !== undefined && (options.owner.includes('\u0000') || !options.owner.trim())) {
    throw new StoreConfigError({
      reason: `owner label ${JSON.stringify(options.owner)} must be non-empty text without NUL characters`,
    });
  }
  const writeAheadTimeoutMs = positive(
    options.writeAheadTimeoutMs,
    DEFAULT_BOUNDS.writeAheadTimeoutMs,
  );
  const reconnectMs = positive(options.reconnectMs, DEFAULT_BOUNDS.reconnectMs);
  const durableTypes: ReadonlySet<string> = new Set(options.durableTypes ?? ['tool/started']);
  let channel: SyncChannel | undefined;
  const syncChannel = (): SyncChannel => {
    channel ??= createSyncChannel(
      {
        ...(options.connectionString ? { connectionString: options.connectionString } : {}),
        ...clientBounds(options),
      },
      { timeoutMs: writeAheadTimeoutMs },
    );
    return channel;
  };
  let listener: NotifyListener | undefined;
  const notifyListener = (): NotifyListener => {
    listener ??= createNotifyListener(async () => {
      const pg = await loadPg();
      const client = new pg.Client({
        ...(options.connectionString ? { connectionString: options.connectionString } : {}),
        ...clientBounds(options),
      });
      try {
        await client.connect();
      } catch (error) {
        client.end().catch(() => {});
        throw error;
      }
      return client;
    });
    return listener;
  };
  let ready: Promise<Database> | undefined;
  const database = (): Promise<Database> => {
    if (ready) return ready;
    const opening = openDatabase(options).then(async (db) => {
      try {
        await assertMigrated(db.pool, db.schema);
      } catch (error) {
        if (db.owned) await db.pool.end().catch(() => {});
        throw translate(error, db.where);
      }
      return db;
    });
    // A failed start (server down, schema not migrated) is retried by the next call.
    opening.catch(() => {
      if (ready === opening) ready = undefined;
    });
    ready = opening;
    return opening;
  };
  const whereOf = (db: Database, id: string): string =>
    `${db.where} (schema ${db.schema}, session ${id})`;
  const schema = checkSchemaName(options.schema ?? 'spine');

  const lastSeqOf = async (client: Pool | PoolClient, db: Database, id: string) => {
    if (idProblem(id)) throw new SessionNotFoundError({ sessionId: id, where: db.where });
    const { rows } = await client.query<{ last_seq: string }>(
      `SELECT last_seq FROM "${db.schema}".spine_sessions WHERE id = $1`,
      [id],
    );
    if (!rows[0]) throw new SessionNotFoundError({ sessionId: id, where: db.where });
    return Number(rows[0].last_seq);
  };

  return {
    specificationVersion: 1,
    kind: 'postgres',
    schema,

    async create(header: SessionEvent): Promise<OpenedSession> {
      const db = await database();
      const s = `"${db.schema}"`;
      const id = (header.body as SessionHeaderBody).sessionId;
      const problem = idProblem(id);
      if (problem) throw new InvalidSessionIdError({ reason: problem });
      const holder = newHolder(options.owner);
      const data = JSON.stringify(header);
      try {
        await db.pool.query(
          `WITH created AS (
             INSERT INTO ${s}.spine_sessions
               (id, header, last_seq, size_bytes, lease_owner, lease_host, lease_pid, lease_token, lease_expires_at)
             VALUES ($1, $2, 1, $3, $4, $5, $6, 1, clock_timestamp() + $7 * interval '1 millisecond')
             RETURNING id)
           INSERT INTO ${s}.spine_events (session_id, seq, data) SELECT id, 1, $8 FROM created`,
          [
            id,
            JSON.stringify(header.body),
            Buffer.byteLength(data) + 1,
            holder.owner,
            holder.host,
            holder.pid,
            leaseMs,
            data,
          ],
        );
      } catch (error) {
        if (sqlState(error) === '23505') throw new SessionExistsError({ sessionId: id });
        throw error;
      }
      return createWriter({
        pool: db.pool,
        schema: db.schema,
        sessionId: id,
        events: [header],
        lastSeq: 1,
        readOnly: false,
        token: 1,
        leaseMs,
        durableTypes,
        syncChannel,
        reconnectMs,
        blobs: new Map(),
      });
    },

    async open(
      sessionId: string,
      openOptions: SessionStoreOpenOptions = {},
    ): Promise<OpenedSession> {
      const db = await database();
      if (idProblem(sessionId)) throw new SessionNotFoundError({ sessionId, where: db.where });
      const where = whereOf(db, sessionId);
      const fromSeq = Math.max(1, Math.floor(openOptions.fromSeq ?? 1));
      const readOnly = openOptions.readOnly ?? false;
      const read = async (client: Pool | PoolClient) => {
        const lastSeq = await lastSeqOf(client, db, sessionId);
        const events = await readEvents(client, {
          schema: db.schema,
          sessionId,
          fromSeq,
          toSeq: lastSeq,
          where,
        });
        return { lastSeq, events, blobs: await readBlobs(client, db.schema, sessionId) };
      };
      const context = {
        pool: db.pool,
        schema: db.schema,
        sessionId,
        readOnly,
        leaseMs,
        durableTypes,
        syncChannel,
        reconnectMs,
      };
      if (readOnly) return createWriter({ ...context, ...(await read(db.pool)), token: 0 });
      const holder = newHolder(options.owner);
      const opened = await inTransaction(db.pool, async (client) => {
        const lease = await acquireLease(client, {
          schema: db.schema,
          sessionId,
          holder,
          leaseMs,
          where: db.where,
        });
        return { token: lease.token, ...(await read(client)) };
      });
      return createWriter({ ...context, ...opened });
    },

    async *readRange(sessionId: string, range: SessionRange): AsyncIterable<SessionEvent> {
      checkRange(range);
      const db = await database();
      await lastSeqOf(db.pool, db, sessionId);
      yield* pageRange(db.pool, {
        schema: db.schema,
        sessionId,
        range,
        where: whereOf(db, sessionId),
      });
    },

    async readSnapshot(sessionId: string): Promise<StoredSnapshot | undefined> {
      const db = await database();
      if (idProblem(sessionId)) throw new SessionNotFoundError({ sessionId, where: db.where });
      return readSnapshotParts(db.pool, { schema: db.schema, sessionId, where: db.where });
    },

    async exists(sessionId: string): Promise<boolean> {
      const db = await database();
      if (idProblem(sessionId)) return false;
      const result = await db.pool.query(
        `SELECT 1 FROM "${db.schema}".spine_sessions WHERE id = $1`,
        [sessionId],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async list(listOptions: { limit?: number } = {}): Promise<PostgresSessionSummary[]> {
      const db = await database();
      const result = await db.pool.query<{
        id: string;
        header: string;
        updated_at: Date;
        size_bytes: string;
        leased_by: string | null;
      }>(
        `SELECT id, header, updated_at, size_bytes,
                CASE WHEN lease_expires_at > clock_timestamp() THEN lease_owner END AS leased_by
           FROM "${db.schema}".spine_sessions ORDER BY updated_at DESC, id LIMIT $1`,
        [listOptions.limit ?? null],
      );
      return result.rows.map((row) => ({
        id: row.id,
        header: JSON.parse(row.header) as SessionHeaderBody,
        sizeBytes: Number(row.size_bytes),
        updatedAt: row.updated_at.toISOString(),
        ...(row.leased_by ? { leasedBy: row.leased_by } : {}),
      }));
    },

    async leaseHolder(sessionId: string): Promise<string | undefined> {
      const db = await database();
      if (idProblem(sessionId)) return undefined;
      const result = await db.pool.query<{ leased_by: string | null }>(
        `SELECT CASE WHEN lease_expires_at > clock_timestamp() THEN lease_owner END AS leased_by
           FROM "${db.schema}".spine_sessions WHERE id = $1`,
        [sessionId],
      );
      return result.rows[0]?.leased_by ?? undefined;
    },

    follow(sessionId: string, followOptions: FollowOptions = {}): AsyncIterable<SessionEvent> {
      return followEvents(
        async () => {
          const db = await database();
          return {
            pool: db.pool,
            schema: db.schema,
            where: whereOf(db, sessionId),
            listener: notifyListener(),
          };
        },
        sessionId,
        followOptions,
      );
    },

    async close(): Promise<void> {
      const open = channel;
      channel = undefined;
      await open?.close();
      const listening = listener;
      listener = undefined;
      await listening?.close();
      if (!ready) return;
      const db = await ready.catch(() => undefined);
      ready = undefined;
      if (db?.owned) await db.pool.end();
    },
  };
}
