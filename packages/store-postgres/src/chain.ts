// Checking the per-row SHA-256 chain of a session's events (migration 2). Each row's `hash` is
// sha256(previous row's hash ‖ UTF-8 of `session_id \n seq \n data`), the previous hash of seq 1
// being empty; a trigger computes it on every INSERT, so an UPDATE, DELETE or renumbering of rows
// done in the database afterwards breaks a link, which this check names.

import { createHash } from 'node:crypto';
import { SessionNotFoundError } from './errors.js';
import { type ConnectionOptions, openDatabase } from './internal/database.js';
import { assertMigrated } from './migrations.js';

/** What broke the chain, at which row. */
export interface ChainProblem {
  /** The seq of the row named (the first one that does not verify). */
  seq: number;
  /** `edited`: its content or hash changed; `deleted`: it is missing; `reordered`: it holds another event. */
  kind: 'edited' | 'deleted' | 'reordered';
  /** A sentence naming the row. */
  message: string;
}

/** The outcome of {@link verifyPostgresChain}. */
export interface ChainResult {
  /** True when every row links to the one before it and none is missing. */
  ok: boolean;
  /** Rows checked before the problem (all of them when ok). */
  events: number;
  /** The last row's hash, hex (empty for an empty session). */
  head: string;
  /** Set when `ok` is false. */
  problem?: ChainProblem;
}

/** The hash of one row given the previous one (the same formula as the migration's trigger). */
export function chainHash(previous: Buffer, sessionId: string, seq: number, data: string): Buffer {
  return createHash('sha256')
    .update(previous)
    .update(`${sessionId}\n${seq}\n${data}`, 'utf8')
    .digest();
}

interface Row {
  seq: string;
  data: string;
  hash: Buffer | null;
}

/** Checks one row against the previous row's stored hash. */
function checkRow(
  sessionId: string,
  expectedSeq: number,
  row: Row,
  previous: Buffer,
): ChainProblem | undefined {
  const seq = Number(row.seq);
  const at = `session ${sessionId}, row seq ${expectedSeq}`;
  if (seq !== expectedSeq) {
    return {
      seq: expectedSeq,
      kind: 'deleted',
      message: `${at}: missing (the next row is seq ${seq}); a row was deleted`,
    };
  }
  let held: unknown;
  try {
    held = (JSON.parse(row.data) as { seq?: unknown }).seq;
  } catch {
    held = undefined;
  }
  if (typeof held === 'number' && held !== seq) {
    return {
      seq,
      kind: 'reordered',
      message: `${at}: holds event seq ${held}; rows were reordered`,
    };
  }
  if (!row.hash || !chainHash(previous, sessionId, seq, row.data).equals(row.hash)) {
    return {
      seq,
      kind: 'edited',
      message: `${at}: its hash does not match its content and the previous row; the row was edited`,
    };
  }
  return undefined;
}

/**
 * Verifies the chain of `sessionId`'s rows, reading them in pages, and names the first row that
 * was edited, deleted or reordered in the database.
 *
 * @throws a {@link SessionNotFoundError} when the session does not exist.
 * @throws a {@link SchemaNotMigratedError} when the schema predates the chain (migrate it).
 * @example
 * ```ts
 * const result = await verifyPostgresChain({ connectionString: url }, 'my-session');
 * if (!result.ok) console.error(result.problem?.message);
 * ```
 */
export async function verifyPostgresChain(
  options: ConnectionOptions,
  sessionId: string,
): Promise<ChainResult> {
  const db = await openDatabase(options);
  const s = `"${db.schema}"`;
  try {
    await assertMigrated(db.pool, db.schema);
    const found = await db.pool.query<{ last_seq: string }>(
      `SELECT last_seq FROM ${s}.spine_sessions WHERE id = $1`,
      [sessionId],
    );
    if (!found.rows[0]) throw new SessionNotFoundError({ sessionId, where: db.where });
    const lastSeq = Number(found.rows[0].last_seq);
    let previous: Buffer = Buffer.alloc(0);
    let expected = 1;
    for (;;) {
      const { rows } = await db.pool.query<Row>(
        `SELECT seq, data, hash FROM ${s}.spine_events
          WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT 1000`,
        [sessionId, expected],
      );
      for (const row of rows) {
        const problem = checkRow(sessionId, expected, row, previous);
        if (problem)
          return { ok: false, events: expected - 1, head: previous.toString('hex'), problem };
        previous = row.hash as Buffer;
        expected += 1;
      }
      if (rows.length < 1000) break;
    }
    if (expected - 1 < lastSeq) {
      const problem: ChainProblem = {
        seq: expected,
        kind: 'deleted',
        message: `session ${sessionId}, row seq ${expected}: missing (the session records ${lastSeq} events); a row was deleted`,
      };
      return { ok: false, events: expected - 1, head: previous.toString('hex'), problem };
    }
    return { ok: true, events: expected - 1, head: previous.toString('hex') };
  } finally {
    await db.pool.end();
  }
}
