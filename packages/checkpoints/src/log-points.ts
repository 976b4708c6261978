// Reading checkpoints back from a session log: where each one sits (turn, step, seq), which one a
// rewind target names, and which snapshot the workspace was last known to match.

import type { SessionEvent, WorkspaceCheckpointBody, WorkspaceRestoredBody } from '@spine/protocol';

/** A `workspace/checkpoint` event of a session, with its position. */
export interface LoggedCheckpoint {
  /** Seq of the event. */
  seq: number;
  /** Turn of the event (absent on a turn-end or rewind checkpoint). */
  turn?: number;
  /** Step of the event. */
  step?: number;
  /** The event's body. */
  body: WorkspaceCheckpointBody;
}

/**
 * Where to rewind to: the workspace as it was before turn `turn` (or its step `step`) changed
 * anything, or as it was at log position `seq`.
 */
export type RewindTarget = { turn: number; step?: number } | { seq: number };

/** Every `workspace/checkpoint` event, in log order. */
export function listCheckpoints(events: readonly SessionEvent[]): LoggedCheckpoint[] {
  const found: LoggedCheckpoint[] = [];
  for (const event of events) {
    if (event.type !== 'workspace/checkpoint') continue;
    const entry: LoggedCheckpoint = { seq: event.seq, body: event.body as WorkspaceCheckpointBody };
    if (event.turn !== undefined) entry.turn = event.turn;
    if (event.step !== undefined) entry.step = event.step;
    found.push(entry);
  }
  return found;
}

/**
 * Parses a `--to` value: `3` (turn 3), `3.2` (turn 3, step 2), `@120` or `seq:120` (log seq 120).
 * Returns undefined for anything else.
 */
export function parseRewindTarget(text: string): RewindTarget | undefined {
  const trimmed = text.trim();
  const seq = /^(?:@|seq:)(\d+)$/.exec(trimmed);
  if (seq) return { seq: Number(seq[1]) };
  const turn = /^(?:turn:)?(\d+)(?:\.(\d+))?$/.exec(trimmed);
  if (!turn) return undefined;
  return turn[2] === undefined
    ? { turn: Number(turn[1]) }
    : { turn: Number(turn[1]), step: Number(turn[2]) };
}

/** Seq where `target` begins: the turn's (or step's) first event, or the seq itself. */
function startSeq(events: readonly SessionEvent[], target: RewindTarget): number | undefined {
  if ('seq' in target) return target.seq;
  for (const event of events) {
    if (event.turn === undefined || event.turn < target.turn) continue;
    if (event.turn > target.turn) return event.seq;
    if (target.step === undefined || (event.step ?? 0) >= target.step) return event.seq;
  }
  return undefined;
}

/**
 * The checkpoint that holds the workspace as it was at `target`: the first one recorded at or
 * after the target's start (before any later change), a rewind's own included. Undefined when the target does not exist;
 * `null` when nothing was recorded since (the workspace has not changed through Spine since).
 */
export function checkpointAt(
  events: readonly SessionEvent[],
  target: RewindTarget,
): LoggedCheckpoint | null | undefined {
  const start = startSeq(events, target);
  if (start === undefined) return undefined;
  for (const checkpoint of listCheckpoints(events)) {
    // A rewind's own checkpoint counts: it holds what that rewind undid (to rewind the rewind).
    if (checkpoint.seq >= start) return checkpoint;
  }
  return null;
}

/**
 * The snapshot the workspace was last known to match through Spine: the newest checkpoint, or the
 * target of a restore written after it. Files that differ from it were changed outside Spine.
 */
export function lastKnownSnapshot(events: readonly SessionEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as SessionEvent;
    if (event.type === 'workspace/restored') return (event.body as WorkspaceRestoredBody).target;
    if (event.type === 'workspace/checkpoint') {
      const body = event.body as WorkspaceCheckpointBody;
      if (body.reason !== 'rewind') return body.id;
    }
  }
  return undefined;
}
