// Taking a session's lease at open: refused while another writer's lease is live; taken over
// (with a `lease/takeover` event in the log) once it expired or its holder on this host exited.

import { hostname } from 'node:os';
import type { SessionEvent } from '@spine/protocol';
import type { PoolClient } from 'pg';
import { SessionLockedError, SessionNotFoundError } from '../errors.js';

/** The event type recorded when a writer takes over a lease another writer held. */
export const LEASE_TAKEOVER_EVENT = 'lease/takeover';

/** Who this process is, in the lease columns. */
export interface LeaseHolder {
  owner: string;
  host: string;
  pid: number;
}

let nonce = 0;

/** A new holder identity: `host:pid:n`, unique per open within this process. */
export function newHolder(label?: string): LeaseHolder {
  nonce += 1;
  const host = hostname();
  return { owner: `${label ?? `${host}:${process.pid}`}:${nonce}`, host, pid: process.pid };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface LeaseRow {
  last_seq: string;
  lease_owner: string | null;
  lease_host: string | null;
  lease_pid: number | null;
  lease_token: string;
  lease_expires_at: Date | null;
  expired: boolean | null;
}

/** The result of {@link acquireLease}: the fencing token and the event it recorded, if any. */
export interface AcquiredLease {
  token: number;
  takeover?: SessionEvent;
}

/**
 * Takes the lease of `sessionId` inside the caller's transaction (the row stays locked until it
 * commits).
 *
 * @throws a {@link SessionNotFoundError} when the session does not exist.
 * @throws a {@link SessionLockedError} while another writer's lease is live.
 */
export async function acquireLease(
  client: PoolClient,
  options: {
    schema: string;
    sessionId: string;
    holder: LeaseHolder;
    leaseMs: number;
    where: string;
  },
): Promise<AcquiredLease> {
  const s = `"${options.schema}"`;
  const { sessionId, holder } = options;
  const found = await client.query<LeaseRow>(
    `SELECT last_seq, lease_owner, lease_host, lease_pid, lease_token, lease_expires_at,
            lease_expires_at < clock_timestamp() AS expired
       FROM ${s}.spine_sessions WHERE id = $1 FOR UPDATE`,
    [sessionId],
  );
  const row = found.rows[0];
  if (!row) throw new SessionNotFoundError({ sessionId, where: options.where });
  let reason: 'expired' | 'holder-exited' | undefined;
  if (row.lease_owner !== null) {
    const exited =
      row.lease_host === holder.host &&
      row.lease_pid !== null &&
      row.lease_pid !== process.pid &&
      !isAlive(row.lease_pid);
    if (row.expired) reason = 'expired';
    else if (exited) reason = 'holder-exited';
    else
      throw new SessionLockedError({
        sessionId,
        owner: row.lease_owner,
        ...(row.lease_expires_at ? { expiresAt: row.lease_expires_at.toISOString() } : {}),
      });
  }
  const token = Number(row.lease_token) + 1;
  let lastSeq = Number(row.last_seq);
  let takeover: SessionEvent | undefined;
  let bytes = 0;
  if (reason) {
    lastSeq += 1;
    takeover = {
      seq: lastSeq,
      type: LEASE_TAKEOVER_EVENT,
      at: new Date().toISOString(),
      body: {
        reason,
        previousOwner: row.lease_owner,
        previousToken: Number(row.lease_token),
        ...(row.lease_expires_at ? { previousExpiresAt: row.lease_expires_at.toISOString() } : {}),
        owner: holder.owner,
        token,
      },
    };
    const data = JSON.stringify(takeover);
    bytes = Buffer.byteLength(data) + 1;
    await client.query(
      `INSERT INTO ${s}.spine_events (session_id, seq, data) VALUES ($1, $2, $3)`,
      [sessionId, lastSeq, data],
    );
  }
  await client.query(
    `UPDATE ${s}.spine_sessions
        SET lease_owner = $2, lease_host = $3, lease_pid = $4, lease_token = $5,
            lease_expires_at = clock_timestamp() + $6 * interval '1 millisecond',
            last_seq = $7, size_bytes = size_bytes + $8
      WHERE id = $1`,
    [sessionId, holder.owner, holder.host, holder.pid, token, options.leaseMs, lastSeq, bytes],
  );
  return takeover ? { token, takeover } : { token };
}
