// What a rewind reads from the log, streamed: the target's start, the checkpoint that holds the
// workspace there and the snapshot it was last known to match. A session that streams its log
// (`readEvents`, as a lazily opened one does) is read by seq range and type, never held whole;
// one without it is read from `events()`. The answers are those of log-points.ts over every event.

import type {
  SessionEvent,
  SessionLog,
  SessionRange,
  WorkspaceCheckpointBody,
  WorkspaceRestoredBody,
} from '@spine/protocol';
import type { LoggedCheckpoint, RewindTarget } from './log-points.js';

/** A session log that may stream its events (a lazily opened session holds only part of them). */
export type StreamingSessionLog = SessionLog & {
  readEvents?(range: SessionRange): AsyncIterable<SessionEvent>;
};

async function* read(
  session: StreamingSessionLog,
  range: SessionRange,
): AsyncIterable<SessionEvent> {
  if (typeof session.readEvents === 'function') {
    yield* session.readEvents(range);
    return;
  }
  const types = range.types ? new Set(range.types) : undefined;
  for (const event of session.events({ from: range.fromSeq })) {
    if (!types || types.has(event.type)) yield event;
  }
}

/** Seq where `target` begins: the turn's (or step's) first event, or the seq itself. */
async function startSeq(
  session: StreamingSessionLog,
  target: RewindTarget,
): Promise<number | undefined> {
  if ('seq' in target) return target.seq;
  for await (const event of read(session, { fromSeq: 1 })) {
    if (event.turn === undefined || event.turn < target.turn) continue;
    if (event.turn > target.turn) return event.seq;
    if (target.step === undefined || (event.step ?? 0) >= target.step) return event.seq;
  }
  return undefined;
}

/**
 * `checkpointAt` streamed: the first checkpoint (a rewind's included) at or after the target's
 * start; undefined when the target does not exist, `null` when nothing was recorded since.
 */
export async function streamedCheckpointAt(
  session: StreamingSessionLog,
  target: RewindTarget,
): Promise<LoggedCheckpoint | null | undefined> {
  const start = await startSeq(session, target);
  if (start === undefined) return undefined;
  const types = ['workspace/checkpoint'];
  const first = Math.ceil(start);
  const fromSeq = Number.isSafeInteger(first) ? Math.max(1, first) : 1;
  for await (const event of read(session, { fromSeq, types })) {
    const body = event.body as WorkspaceCheckpointBody;
    if (!(event.seq >= start)) continue;
    const entry: LoggedCheckpoint = { seq: event.seq, body };
    if (event.turn !== undefined) entry.turn = event.turn;
    if (event.step !== undefined) entry.step = event.step;
    return entry;
  }
  return null;
}

/**
 * `lastKnownSnapshot` streamed: the newest checkpoint (not a rewind's), or the target of a
 * restore written after it.
 */
export async function streamedLastKnownSnapshot(
  session: StreamingSessionLog,
): Promise<string | undefined> {
  let known: string | undefined;
  const types = ['workspace/checkpoint', 'workspace/restored'];
  for await (const event of read(session, { fromSeq: 1, types })) {
    if (event.type === 'workspace/restored') known = (event.body as WorkspaceRestoredBody).target;
    else {
      const body = event.body as WorkspaceCheckpointBody;
      if (body.reason !== 'rewind') known = body.id;
    }
  }
  return known;
}

/**
 * Paths recorded as changed outside the session (`outside` of its checkpoints) after `seq`:
 * a rewind to the checkpoint at `seq` would undo those changes.
 */
export async function streamedOutsideSince(
  session: StreamingSessionLog,
  seq: number,
): Promise<Set<string>> {
  const paths = new Set<string>();
  const types = ['workspace/checkpoint'];
  for await (const event of read(session, { fromSeq: seq + 1, types })) {
    if (event.seq <= seq) continue;
    for (const path of (event.body as WorkspaceCheckpointBody).outside ?? []) paths.add(path);
  }
  return paths;
}
