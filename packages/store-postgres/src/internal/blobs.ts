// A session's blobs in PostgreSQL (`spine_blobs`, one row per (session, SHA-256), migration 3).
// `StoreBlobs.get` is synchronous, so an open reads the session's blobs once; `put` keeps the
// bytes in that map and queues the row, which the writer sends before any later event batch; a
// write-ahead append carries every blob not known committed and stores it first (so an event
// never reaches the table ahead of the blob it references, on either path).
import type { Pool, PoolClient } from 'pg';
import { LeaseLostError } from '../errors.js';

/** A blob waiting to be written. */
export interface PendingBlob {
  sha256: string;
  bytes: Uint8Array;
}

/** Every blob of `sessionId`, by SHA-256. */
export async function readBlobs(
  client: Pool | PoolClient,
  schema: string,
  sessionId: string,
): Promise<Map<string, Uint8Array>> {
  const result = await client.query<{ sha256: string; data: Buffer }>(
    `SELECT sha256, data FROM "${schema}".spine_blobs WHERE session_id = $1`,
    [sessionId],
  );
  return new Map(result.rows.map((row) => [row.sha256, row.data]));
}

/**
 * The fenced blob insert of `schema`: $1 session id, $2 token, $3 SHA-256, $4 bytes. Stores the
 * row only while the lease with that token is held (a row already there is kept) and returns the
 * session's `lease_token, lease_owner`, so the caller tells a lost lease from success.
 */
export function blobInsertSql(schema: string): string {
  const s = `"${schema}"`;
  return `WITH lease AS (
       SELECT id, lease_token, lease_owner FROM ${s}.spine_sessions WHERE id = $1),
     stored AS (
       INSERT INTO ${s}.spine_blobs (session_id, sha256, data)
       SELECT id, $3, $4 FROM lease WHERE lease_token = $2
       ON CONFLICT (session_id, sha256) DO NOTHING)
     SELECT lease_token, lease_owner FROM lease`;
}

/**
 * Writes `blobs` while the lease with `token` is held (checked in the same statement); a row
 * already there is kept. Throws {@link LeaseLostError} when the lease was taken over.
 */
export async function writeBlobs(
  pool: Pool,
  context: { schema: string; sessionId: string; token: number },
  blobs: readonly PendingBlob[],
): Promise<void> {
  const sql = blobInsertSql(context.schema);
  for (const blob of blobs) {
    const result = await pool.query<{ lease_token: string; lease_owner: string | null }>(sql, [
      context.sessionId,
      context.token,
      blob.sha256,
      Buffer.from(blob.bytes),
    ]);
    const row = result.rows[0];
    if (!row || Number(row.lease_token) !== context.token) {
      throw new LeaseLostError({
        sessionId: context.sessionId,
        token: context.token,
        owner: row?.lease_owner ?? null,
      });
    }
  }
}
