import { resolve } from 'node:path';
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
import type BetterSqlite3 from 'better-sqlite3';
import {
  SessionClosedError,
  SessionCorruptError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  StoreUnavailableError,
} from './errors.js';
import { compactEvent, structuralProblem } from './internal/event-check.js';
import { databaseFailure } from './internal/fs-errors.js';
import { isAlive, startTimeOf } from './internal/process.js';
import { checkRange } from './internal/range.js';

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file; created with WAL journaling when missing. */
  path: string;
}

/** A SQLite-backed `SessionStore` that can also close its database connection. */
export interface SqliteStore extends SessionStore {
  /** Closes the database connection. Sessions opened from this store must be closed first. */
  close(): Promise<void>;
}

type Database = BetterSqlite3.Database;

/** Locks held by this process, so two writers in one process are refused too. */
const held = new Set<string>();

async function openDatabase(path: string): Promise<Database> {
  let DatabaseClass: typeof BetterSqlite3;
  try {
    DatabaseClass = (await import('better-sqlite3')).default;
  } catch (cause) {
    throw new StoreUnavailableError({
      message: 'Cannot load better-sqlite3; npm i better-sqlite3@12 or use the jsonl store',
      cause,
    });
  }
  let db: Database | undefined;
  try {
    db = new DatabaseClass(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`
      CREATE TABLE IF NOT EXISTS spine_sessions (
        id TEXT PRIMARY KEY, header TEXT NOT NULL, updated_at TEXT NOT NULL,
        size_bytes INTEGER NOT NULL DEFAULT 0, lock_pid INTEGER, lock_start TEXT);
      CREATE TABLE IF NOT EXISTS spine_events (
        session_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS spine_snapshots (
        session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, data TEXT NOT NULL);`);
    return db;
  } catch (error) {
    db?.close();
    throw databaseFailure(error, 'open the session database', path);
  }
}

/**
 * Creates a store keeping every session in one SQLite database (better-sqlite3 12, WAL). Loaded
 * lazily from the `@spine/session-log/sqlite` subpath; better-sqlite3 is an optional peer.
 * A database file that cannot be opened or written (its folder is missing or not writable, the
 * disk is full) throws a `StoreUnavailableError` naming it, with SQLite's code in `systemCode`;
 * the next call tries to open it again.
 *
 * @throws a {@link StoreUnavailableError} from its methods when better-sqlite3 cannot be loaded.
 * @example
 * ```ts
 * import { createSqliteStore } from '@spine/session-log/sqlite';
 * const session = await Session.create({ store: createSqliteStore({ path: 'sessions.db' }) });
 * ```
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const path = resolve(options.path);
  let database: Promise<Database> | undefined;
  const db = (): Promise<Database> => {
    // A database that failed to open is tried again by the next call (its folder may be fixed).
    database ??= openDatabase(path).catch((error: unknown) => {
      database = undefined;
      throw error;
    });
    return database;
  };

  const writer = (
    handle: Database,
    sessionId: string,
    events: SessionEvent[],
    lastSeq: number,
    readOnly: boolean,
  ): OpenedSession => {
    const key = `${path}#${sessionId}`;
    const insert = handle.prepare(
      'INSERT INTO spine_events (session_id, seq, data) VALUES (?, ?, ?)',
    );
    const touch = handle.prepare(
      'UPDATE spine_sessions SET updated_at = ?, size_bytes = size_bytes + ? WHERE id = ?',
    );
    const appendAll = handle.transaction((batch: readonly SessionEvent[]) => {
      let bytes = 0;
      for (const event of batch) {
        const data = JSON.stringify(event);
        bytes += data.length + 1;
        insert.run(sessionId, event.seq, data);
      }
      touch.run(new Date().toISOString(), bytes, sessionId);
    });
    let closed = false;
    return {
      events,
      lastSeq,
      append(batch: readonly SessionEvent[]): void {
        if (closed || readOnly)
          throw new SessionClosedError({ sessionId, reason: readOnly ? 'read-only' : 'closed' });
        try {
          appendAll(batch);
        } catch (error) {
          throw databaseFailure(error, `append to session ${sessionId}`, path);
        }
      },
      // WAL with synchronous=NORMAL syncs at checkpoints: a checkpoint makes commits durable.
      async flush(): Promise<void> {
        if (!closed && !readOnly) handle.pragma('wal_checkpoint(FULL)');
      },
      checkpoint(): void {
        if (!closed && !readOnly) handle.pragma('wal_checkpoint(PASSIVE)');
      },
      async writeSnapshot(snapshot: StoredSnapshot): Promise<void> {
        if (closed || readOnly)
          throw new SessionClosedError({ sessionId, reason: readOnly ? 'read-only' : 'closed' });
        // One statement, one transaction: the previous snapshot or this one, never a mix.
        handle
          .prepare(
            'INSERT INTO spine_snapshots (session_id, seq, data) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, data = excluded.data',
          )
          .run(sessionId, snapshot.seq, snapshot.data);
      },
      async close(): Promise<void> {
        if (closed) return;
        closed = true;
        if (readOnly) return;
        held.delete(key);
        handle
          .prepare('UPDATE spine_sessions SET lock_pid = NULL WHERE id = ? AND lock_pid = ?')
          .run(sessionId, process.pid);
      },
    };
  };

  const lock = (handle: Database, sessionId: string): void => {
    const key = `${path}#${sessionId}`;
    const take = handle.transaction(() => {
      const row = handle
        .prepare('SELECT lock_pid, lock_start FROM spine_sessions WHERE id = ?')
        .get(sessionId) as { lock_pid: number | null; lock_start: string | null } | undefined;
      if (!row) throw new SessionNotFoundError({ sessionId, where: path });
      const pid = row.lock_pid;
      const live =
        pid !== null &&
        (pid === process.pid ? held.has(key) : isAlive(pid, row.lock_start ?? undefined));
      if (live) {
        throw new SessionLockedError({ sessionId, path, pid });
      }
      handle
        .prepare('UPDATE spine_sessions SET lock_pid = ?, lock_start = ? WHERE id = ?')
        .run(process.pid, startTimeOf(process.pid) ?? null, sessionId);
    });
    try {
      take.immediate();
    } catch (error) {
      throw databaseFailure(
        error,
        `open session ${sessionId} for writing (open it with { readOnly: true } to read it without a lock)`,
        path,
      );
    }
    held.add(key);
  };

  return {
    specificationVersion: 1,
    kind: 'sqlite',
    async create(header: SessionEvent): Promise<OpenedSession> {
      const handle = await db();
      const id = (header.body as SessionHeaderBody).sessionId;
      const data = JSON.stringify(header);
      const insert = handle.transaction(() => {
        if (handle.prepare('SELECT 1 FROM spine_sessions WHERE id = ?').get(id)) {
          throw new SessionExistsError({ sessionId: id });
        }
        handle
          .prepare(
            'INSERT INTO spine_sessions (id, header, updated_at, size_bytes, lock_pid, lock_start) VALUES (?, ?, ?, ?, ?, ?)',
          )
          .run(
            id,
            JSON.stringify(header.body),
            header.at,
            data.length + 1,
            process.pid,
            startTimeOf(process.pid) ?? null,
          );
        handle
          .prepare('INSERT INTO spine_events (session_id, seq, data) VALUES (?, 1, ?)')
          .run(id, data);
      });
      try {
        insert.immediate();
      } catch (error) {
        throw databaseFailure(error, `create session ${id}`, path);
      }
      held.add(`${path}#${id}`);
      return writer(handle, id, [header], 1, false);
    },

    async open(
      sessionId: string,
      openOptions: SessionStoreOpenOptions = {},
    ): Promise<OpenedSession> {
      const handle = await db();
      const fromSeq = Math.max(1, openOptions.fromSeq ?? 1);
      const readOnly = openOptions.readOnly ?? false;
      if (readOnly) {
        if (!handle.prepare('SELECT 1 FROM spine_sessions WHERE id = ?').get(sessionId)) {
          throw new SessionNotFoundError({ sessionId, where: path });
        }
      } else {
        lock(handle, sessionId);
      }
      try {
        const events: SessionEvent[] = [];
        const types = new Map<string, string>();
        const rows = handle
          .prepare('SELECT data FROM spine_events WHERE session_id = ? AND seq >= ? ORDER BY seq')
          .pluck()
          .iterate(sessionId, fromSeq) as IterableIterator<string>;
        for (const data of rows) {
          const seq = events.length + fromSeq;
          let value: unknown;
          try {
            value = JSON.parse(data);
          } catch (cause) {
            throw new SessionCorruptError({
              file: `${path} (session ${sessionId})`,
              line: seq,
              reason: 'not valid JSON',
              cause,
            });
          }
          const problem = structuralProblem(value, seq);
          if (problem)
            throw new SessionCorruptError({
              file: `${path} (session ${sessionId})`,
              line: seq,
              reason: problem,
            });
          compactEvent(value as SessionEvent, types);
          events.push(value as SessionEvent);
        }
        const last = handle
          .prepare('SELECT MAX(seq) FROM spine_events WHERE session_id = ?')
          .pluck()
          .get(sessionId) as number | null;
        return writer(handle, sessionId, events, last ?? 0, readOnly);
      } catch (error) {
        if (!readOnly) {
          held.delete(`${path}#${sessionId}`);
          handle.prepare('UPDATE spine_sessions SET lock_pid = NULL WHERE id = ?').run(sessionId);
        }
        throw error;
      }
    },

    async *readRange(sessionId: string, range: SessionRange): AsyncIterable<SessionEvent> {
      checkRange(range);
      const handle = await db();
      if (!handle.prepare('SELECT 1 FROM spine_sessions WHERE id = ?').get(sessionId)) {
        throw new SessionNotFoundError({ sessionId, where: path });
      }
      const limit = range.limit ?? Number.POSITIVE_INFINITY;
      if (limit <= 0) return;
      const types = range.types ? new Set(range.types) : undefined;
      // Read in pages so no statement stays open across a yield (the caller may write meanwhile).
      let next = range.fromSeq;
      const toSeq = range.toSeq ?? Number.MAX_SAFE_INTEGER;
      let yielded = 0;
      const page = handle
        .prepare(
          'SELECT seq, data FROM spine_events WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT 512',
        )
        .raw();
      for (;;) {
        const rows = page.all(sessionId, next, toSeq) as Array<[number, string]>;
        if (rows.length === 0) return;
        for (const [seq, data] of rows) {
          let value: unknown;
          try {
            value = JSON.parse(data);
          } catch (cause) {
            throw new SessionCorruptError({
              file: `${path} (session ${sessionId})`,
              line: seq,
              reason: 'not valid JSON',
              cause,
            });
          }
          const problem = structuralProblem(value, seq);
          if (problem) {
            throw new SessionCorruptError({
              file: `${path} (session ${sessionId})`,
              line: seq,
              reason: problem,
            });
          }
          const event = value as SessionEvent;
          if (types && !types.has(event.type)) continue;
          yield event;
          if (++yielded >= limit) return;
        }
        next = (rows[rows.length - 1] as [number, string])[0] + 1;
      }
    },

    async readSnapshot(sessionId: string): Promise<StoredSnapshot | undefined> {
      const handle = await db();
      if (!handle.prepare('SELECT 1 FROM spine_sessions WHERE id = ?').get(sessionId)) {
        throw new SessionNotFoundError({ sessionId, where: path });
      }
      const row = handle
        .prepare('SELECT seq, data FROM spine_snapshots WHERE session_id = ?')
        .get(sessionId) as { seq: number; data: string } | undefined;
      return row && { seq: row.seq, data: row.data };
    },

    async exists(sessionId: string): Promise<boolean> {
      const handle = await db();
      return (
        handle.prepare('SELECT 1 FROM spine_sessions WHERE id = ?').get(sessionId) !== undefined
      );
    },

    async list(listOptions: { limit?: number } = {}): Promise<SessionSummary[]> {
      const handle = await db();
      const rows = handle
        .prepare(
          'SELECT id, header, updated_at, size_bytes FROM spine_sessions ORDER BY updated_at DESC, id LIMIT ?',
        )
        .all(listOptions.limit ?? -1) as Array<{
        id: string;
        header: string;
        updated_at: string;
        size_bytes: number;
      }>;
      return rows.map((row) => ({
        id: row.id,
        header: JSON.parse(row.header) as SessionHeaderBody,
        sizeBytes: row.size_bytes,
        updatedAt: row.updated_at,
      }));
    },

    async close(): Promise<void> {
      if (!database) return;
      const handle = await database;
      database = undefined;
      handle.close();
    },
  };
}
