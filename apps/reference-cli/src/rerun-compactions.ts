import type { SessionEvent, SessionLog } from '@spine/protocol';
import type { WiredAgent } from './wire.js';

/** A manual compaction (`/compact`) of a recording and where it ran between turns. */
export interface RecordedManualCompaction {
  /** How many turns had started when it ran (0: before the first turn). */
  afterTurns: number;
  /** The turn number of the first turn started after it; absent when it ran after the last turn. */
  beforeTurn?: number;
  /** Seq of its `compaction/start`, or of its `compaction/failed` when it failed before starting. */
  seq: number;
  /** How it ended in the recording. */
  outcome: 'completed' | 'failed';
}

interface Pending {
  afterTurns: number;
  seq: number;
  outcome?: 'completed' | 'failed';
}

/**
 * Finds the manual compactions of a recorded session, in order, with their position between
 * turns. Only compactions the recording saw end (`compaction/end`) or fail (`compaction/failed`)
 * count; a manual compaction that failed before it started (nothing to select) counts as failed.
 *
 * @example
 * ```ts
 * for (const manual of recordedManualCompactions(events)) console.log(manual.afterTurns);
 * ```
 */
export function recordedManualCompactions(
  events: readonly SessionEvent[],
): RecordedManualCompaction[] {
  const found: Pending[] = [];
  const started = new Map<number, Pending>();
  const turnStarts: { afterTurns: number; turn: number }[] = [];
  let turns = 0;
  for (const event of events) {
    const body = event.body as { reason?: string; compactionId?: number | null };
    if (event.type === 'turn/start') {
      turnStarts.push({ afterTurns: turns, turn: event.turn ?? turns + 1 });
      turns++;
    } else if (event.type === 'compaction/start' && body.reason === 'manual') {
      const pending = { afterTurns: turns, seq: event.seq };
      started.set(event.seq, pending);
      found.push(pending);
    } else if (event.type === 'compaction/end' || event.type === 'compaction/failed') {
      const id = body.compactionId;
      const pending = typeof id === 'number' ? started.get(id) : undefined;
      const outcome = event.type === 'compaction/end' ? 'completed' : 'failed';
      if (pending) pending.outcome = outcome;
      else if (event.type === 'compaction/failed' && id == null && body.reason === 'manual') {
        found.push({ afterTurns: turns, seq: event.seq, outcome });
      }
    }
  }
  return found.flatMap((pending): RecordedManualCompaction[] => {
    if (!pending.outcome) return [];
    const next = turnStarts.find((start) => start.afterTurns === pending.afterTurns);
    return [
      {
        afterTurns: pending.afterTurns,
        ...(next ? { beforeTurn: next.turn } : {}),
        seq: pending.seq,
        outcome: pending.outcome,
      },
    ];
  });
}

/** How many compactions completed (`compaction/end` events) in a session. */
export function completedCompactions(events: readonly SessionEvent[]): number {
  return events.filter((event) => event.type === 'compaction/end').length;
}

/** Whether a recorded manual compaction runs before the turn numbered `turn` (any, when absent). */
export function isBefore(compaction: RecordedManualCompaction, turn: number | undefined): boolean {
  return (
    turn === undefined || (compaction.beforeTurn !== undefined && compaction.beforeTurn <= turn)
  );
}

/** Runs a manual compaction exactly as the interactive `/compact` does (without a focus). */
export async function compactManually(wired: WiredAgent, session: SessionLog): Promise<void> {
  const snapshot = wired.prompt.assemble({ tools: wired.runtime.specs() });
  await wired.compaction.compact({
    session,
    reason: 'manual',
    contextWindow: wired.model.contextWindow,
    system: snapshot.system,
    tools: snapshot.tools,
  });
}
