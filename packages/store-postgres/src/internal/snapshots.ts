// A session's snapshot in PostgreSQL. Since migration 4 its text is kept in parts of at most
// PART_UNITS UTF-16 code units (`spine_snapshot_parts`, one row each) and `spine_snapshots` holds
// its seq and part count. Why parts: a snapshot is megabytes read whole on every lazy open, and
// one value that large makes the server allocate it several times over (detoasted, converted to
// text, copied into the DataRow) in fresh memory each time, so a backend spent about as long in
// page faults as the client spent parsing; small rows reuse the same few buffers on both ends.
// A snapshot written before migration 4 stays in `spine_snapshots.data` and is read from there
// until the session writes its next one.
//
// The text is opaque here: the session log checks its digests (a part lost or edited fails them
// and the snapshot is rebuilt), so a part count that does not match is handed on as read.

import type { StoredSnapshot } from '@spine/protocol';
import type { Pool, PoolClient } from 'pg';
import { SessionNotFoundError } from '../errors.js';

/**
 * The longest part in UTF-16 code units: at most 48 KiB of UTF-8, so a part's DataRow fits in
 * one 64 KiB socket read (measured: 16–32 Ki parts read a 2.9 MB snapshot in half the time of one
 * value; 64 Ki parts, which span reads, cost the client twice the CPU).
 */
export const PART_UNITS = 16_384;

/** Cuts `text` into parts of at most {@link PART_UNITS}, never between a surrogate pair. */
export function splitSnapshot(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + PART_UNITS);
    const last = text.charCodeAt(end - 1);
    // A high surrogate ending the part goes to the next one with its low half.
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

/**
 * The fenced snapshot write of `schema`: $1 session id, $2 token, $3 seq, $4 part count, $5 the
 * parts (text[]). One statement: the snapshot row and its parts are replaced together, parts past
 * the new count removed, only while the lease with that token is held. Returns `stored` 1 when
 * written, 0 when the lease was lost.
 */
export function snapshotWriteSql(schema: string): string {
  const s = `"${schema}"`;
  // The DELETE and the upsert touch disjoint parts (> $4 and ≤ $4), so their order within the
  // statement does not matter.
  return `WITH snapshot AS (
       INSERT INTO ${s}.spine_snapshots (session_id, seq, data, parts)
       SELECT id, $3, NULL, $4 FROM ${s}.spine_sessions WHERE id = $1 AND lease_token = $2
       ON CONFLICT (session_id) DO UPDATE
         SET seq = excluded.seq, data = NULL, parts = excluded.parts, created_at = clock_timestamp()
       RETURNING session_id),
     dropped AS (
       DELETE FROM ${s}.spine_snapshot_parts
        WHERE session_id = (SELECT session_id FROM snapshot) AND part > $4),
     stored AS (
       INSERT INTO ${s}.spine_snapshot_parts (session_id, part, data)
       SELECT snapshot.session_id, t.part::int, t.data
         FROM snapshot, unnest($5::text[]) WITH ORDINALITY AS t(data, part)
       ON CONFLICT (session_id, part) DO UPDATE SET data = excluded.data)
     SELECT count(*)::int AS stored FROM snapshot`;
}

/**
 * The newest snapshot of `sessionId` in one round trip, with the session's existence checked in
 * the same statement: parts in order (or the whole text of a snapshot written before migration 4).
 *
 * @throws a {@link SessionNotFoundError} when the session does not exist.
 */
export async function readSnapshotParts(
  client: Pool | PoolClient,
  options: { schema: string; sessionId: string; where: string },
): Promise<StoredSnapshot | undefined> {
  const s = `"${options.schema}"`;
  // rowMode 'array': each part row is [seq, whole, part] without an object per row.
  const { rows } = await client.query<[string | null, string | null, string | null]>({
    text: `SELECT snapshot.seq, snapshot.data, part.data
             FROM ${s}.spine_sessions session
             LEFT JOIN ${s}.spine_snapshots snapshot ON snapshot.session_id = session.id
             LEFT JOIN ${s}.spine_snapshot_parts part ON part.session_id = snapshot.session_id
            WHERE session.id = $1
            ORDER BY part.part`,
    values: [options.sessionId],
    rowMode: 'array',
  });
  const first = rows[0];
  if (!first)
    throw new SessionNotFoundError({ sessionId: options.sessionId, where: options.where });
  const [seq, whole] = first;
  if (seq === null) return undefined;
  if (whole !== null) return { seq: Number(seq), data: whole };
  let data = '';
  for (const row of rows) if (row[2] !== null) data += row[2];
  return { seq: Number(seq), data };
}
