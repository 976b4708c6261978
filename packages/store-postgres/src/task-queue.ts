import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { InvalidTaskError } from './errors.js';
import {
  type ConnectionOptions,
  checkSchemaName,
  type Database,
  openDatabase,
} from './internal/database.js';
import { assertMigrated } from './migrations.js';

/** What a worker needs to run a task as an ordinary session. */
export interface TaskSpec {
  /** The task for the agent, as the user would type it. */
  prompt: string;
  /** A folder every worker can reach, or a git URL each worker clones. */
  workspace: string;
  /** `provider/model` (default: the worker's configuration). */
  model?: string;
  /** A configuration profile to apply. */
  profile?: string;
}

/** Where a task is. `running` with an expired lease is claimable again (its worker died). */
export type TaskStatus = 'queued' | 'running' | 'done' | 'failed';

/** A task as the queue stores it. */
export interface TaskRecord {
  /** The task id. */
  id: string;
  /** The session the task runs as (created by the first worker that claims it). */
  sessionId: string;
  /** What to run. */
  spec: TaskSpec;
  /** Where it is. */
  status: TaskStatus;
  /** The worker running it (or that ran it last). */
  worker?: string;
  /** How many times a worker claimed it (2 or more: it was taken over or released). */
  attempts: number;
  /** The fencing token of the current claim. */
  token: number;
  /** When the current claim expires unless renewed (ISO-8601). */
  leaseExpiresAt?: string;
  /** What the worker reported when it finished. */
  result?: unknown;
  /** ISO-8601 times. */
  createdAt: string;
  /** ISO-8601 time of the last change. */
  updatedAt: string;
}

/** Options of {@link createPostgresTaskQueue}. */
export interface PostgresTaskQueueOptions extends ConnectionOptions {
  /** How long a claim lasts without a heartbeat before another worker may take it (default 30 s). */
  leaseMs?: number;
}

/**
 * A task queue on PostgreSQL: `submit` adds, `claim` takes the oldest queued task (or one whose
 * worker stopped renewing) with `FOR UPDATE SKIP LOCKED`, so concurrent workers never wait for
 * or take the same task. Every later call is fenced by the claim's token.
 */
export interface PostgresTaskQueue {
  /** Queues a task. */
  submit(spec: TaskSpec, options?: { id?: string; sessionId?: string }): Promise<TaskRecord>;
  /** Claims one task for `worker`, or resolves undefined when none is claimable. */
  claim(worker: string): Promise<TaskRecord | undefined>;
  /** Renews a claim; false when it was lost (expired and taken over): stop working on it. */
  heartbeat(task: TaskRecord): Promise<boolean>;
  /** Marks a claimed task done or failed with a result; false when the claim was lost. */
  finish(
    task: TaskRecord,
    outcome: { status: 'done' | 'failed'; result?: unknown },
  ): Promise<boolean>;
  /** Gives a claimed task back to the queue (a worker stopping); false when the claim was lost. */
  release(task: TaskRecord): Promise<boolean>;
  /** One task by id. */
  get(id: string): Promise<TaskRecord | undefined>;
  /** Tasks, newest first. */
  list(options?: { limit?: number }): Promise<TaskRecord[]>;
  /** Ends the pool the queue made. */
  close(): Promise<void>;
}

interface TaskRow {
  id: string;
  session_id: string;
  spec: string;
  status: TaskStatus;
  worker: string | null;
  attempts: number;
  token: string;
  lease_expires_at: Date | null;
  result: string | null;
  created_at: Date;
  updated_at: Date;
}

function toRecord(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    spec: JSON.parse(row.spec) as TaskSpec,
    status: row.status,
    ...(row.worker ? { worker: row.worker } : {}),
    attempts: row.attempts,
    token: Number(row.token),
    ...(row.lease_expires_at ? { leaseExpiresAt: row.lease_expires_at.toISOString() } : {}),
    ...(row.result === null ? {} : { result: JSON.parse(row.result) as unknown }),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function checkSpec(spec: TaskSpec): void {
  const text = (value: unknown): boolean => typeof value === 'string' && value.trim().length > 0;
  if (!spec || !text(spec.prompt))
    throw new InvalidTaskError({ reason: 'prompt must be a non-empty string' });
  if (!text(spec.workspace))
    throw new InvalidTaskError({ reason: 'workspace must be a path or a git URL' });
  for (const key of ['model', 'profile'] as const) {
    if (spec[key] !== undefined && !text(spec[key])) {
      throw new InvalidTaskError({ reason: `${key} must be a non-empty string when given` });
    }
  }
}

/**
 * Creates a task queue in the same schema as the store (migrate it first).
 *
 * @throws a {@link SchemaNotMigratedError} from its methods when the schema is missing or outdated.
 * @example
 * ```ts
 * const queue = createPostgresTaskQueue({ connectionString: process.env.SPINE_STORE_URL });
 * await queue.submit({ prompt: 'fix the failing test', workspace: '/srv/repo' });
 * ```
 */
export function createPostgresTaskQueue(options: PostgresTaskQueueOptions = {}): PostgresTaskQueue {
  const leaseMs = options.leaseMs ?? 30_000;
  const schema = checkSchemaName(options.schema ?? 'spine');
  const t = `"${schema}".spine_tasks`;
  let ready: Promise<Database> | undefined;
  const pool = async (): Promise<Pool> => {
    if (!ready) {
      const opening = openDatabase(options).then(async (db) => {
        await assertMigrated(db.pool, db.schema);
        return db;
      });
      opening.catch(() => {
        if (ready === opening) ready = undefined;
      });
      ready = opening;
    }
    return (await ready).pool;
  };
  const fenced = async (sql: string, task: TaskRecord, extra: unknown[] = []): Promise<boolean> => {
    const result = await (await pool()).query(sql, [task.id, task.token, ...extra]);
    return (result.rowCount ?? 0) > 0;
  };

  return {
    async submit(spec, submitOptions = {}) {
      checkSpec(spec);
      const id = submitOptions.id ?? `task-${randomBytes(8).toString('hex')}`;
      const { rows } = await (await pool()).query<TaskRow>(
        `INSERT INTO ${t} (id, session_id, spec, status) VALUES ($1, $2, $3, 'queued') RETURNING *`,
        [id, submitOptions.sessionId ?? id, JSON.stringify(spec)],
      );
      return toRecord(rows[0] as TaskRow);
    },

    async claim(worker) {
      const { rows } = await (await pool()).query<TaskRow>(
        `UPDATE ${t} SET status = 'running', worker = $1, token = token + 1, attempts = attempts + 1,
                lease_expires_at = clock_timestamp() + $2 * interval '1 millisecond',
                updated_at = clock_timestamp()
          WHERE id = (
            SELECT id FROM ${t}
             WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < clock_timestamp())
             ORDER BY created_at, id
             LIMIT 1
             FOR UPDATE SKIP LOCKED)
          RETURNING *`,
        [worker, leaseMs],
      );
      return rows[0] ? toRecord(rows[0]) : undefined;
    },

    heartbeat: (task) =>
      fenced(
        `UPDATE ${t} SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
          WHERE id = $1 AND token = $2 AND status = 'running'`,
        task,
        [leaseMs],
      ),

    finish: (task, outcome) =>
      fenced(
        `UPDATE ${t} SET status = $3, result = $4, lease_expires_at = NULL, updated_at = clock_timestamp()
          WHERE id = $1 AND token = $2 AND status = 'running'`,
        task,
        [outcome.status, outcome.result === undefined ? null : JSON.stringify(outcome.result)],
      ),

    release: (task) =>
      fenced(
        `UPDATE ${t} SET status = 'queued', lease_expires_at = NULL, updated_at = clock_timestamp()
          WHERE id = $1 AND token = $2 AND status = 'running'`,
        task,
      ),

    async get(id) {
      const { rows } = await (await pool()).query<TaskRow>(`SELECT * FROM ${t} WHERE id = $1`, [
        id,
      ]);
      return rows[0] ? toRecord(rows[0]) : undefined;
    },

    async list(listOptions = {}) {
      const { rows } = await (await pool()).query<TaskRow>(
        `SELECT * FROM ${t} ORDER BY created_at DESC, id LIMIT $1`,
        [listOptions.limit ?? null],
      );
      return rows.map(toRecord);
    },

    async close() {
      if (!ready) return;
      const db = await ready.catch(() => undefined);
      ready = undefined;
      if (db?.owned) await db.pool.end();
    },
  };
}
