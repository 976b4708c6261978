// Rewinding a session's workspace to a checkpoint named by turn, step or seq: plan (and dry run
// with a patch), detect files changed outside Spine since its last checkpoint, ask before
// overwriting them, restore, and record the restore in the log so the audit trail shows it.

import {
  assertSpecificationVersion,
  type SessionEvent,
  type SessionLog,
  type SessionRange,
  type UnsupportedSpecificationError,
  type WorkspaceRestoredBody,
} from '@spine/protocol';
import type { CheckpointStore, UncoveredPath, WorkspaceChange } from './checkpoint-store.js';
import { CheckpointNotFoundError, CheckpointStoreMissingError } from './errors.js';
import type { LoggedCheckpoint, RewindTarget } from './log-points.js';
import { checkpointBody, listedChanges } from './recorder.js';
import {
  streamedCheckpointAt,
  streamedLastKnownSnapshot,
  streamedOutsideSince,
} from './rewind-read.js';

/** Options of {@link rewindWorkspace}. */
export interface RewindOptions {
  /**
   * The session whose workspace is rewound; the restore is recorded in it. Its checkpoint events
   * are streamed through `readEvents` when it has that method (a lazily opened session), else
   * read from `events()`.
   */
  session: SessionLog & {
    /** Streams the events of `range` in seq order, older ones from the store. */
    readEvents?(range: SessionRange): AsyncIterable<SessionEvent>;
  };
  /** The store holding the session's checkpoints. */
  store: CheckpointStore;
  /** Where to rewind to. */
  to: RewindTarget;
  /** Why: a rewind, an undo of the last turn, or an abort that rolls back (default `rewind`). */
  reason?: WorkspaceRestoredBody['reason'];
  /** Computes the changes and a patch without writing anything or appending events. */
  dryRun?: boolean;
  /**
   * Asked with the files changed outside Spine that the rewind would overwrite; resolve true to
   * overwrite them. Without it such a rewind is refused.
   */
  confirm?: (paths: readonly string[]) => Promise<boolean>;
  /** Store kind written into the events (default `git`). */
  storeKind?: string;
  /** Id of a session forked at the target, recorded in `workspace/restored`. */
  conversation?: string;
  /**
   * Told, before anything changes, what the store does not cover and a rewind therefore cannot
   * restore (ignored, over the size cap, nested repositories, unreadable); called once, even
   * when the list is empty.
   */
  onUncovered?: (uncovered: readonly UncoveredPath[]) => void;
  /** Stops between store calls. */
  signal?: AbortSignal;
}

/** How {@link rewindWorkspace} ended (a value, not a throw). */
export type RewindOutcome =
  | { status: 'not-found'; message: string }
  | { status: 'nothing-to-do'; checkpoint?: LoggedCheckpoint; uncovered: UncoveredPath[] }
  | {
      status: 'refused';
      checkpoint: LoggedCheckpoint;
      conflicts: string[];
      uncovered: UncoveredPath[];
    }
  | {
      status: 'dry-run';
      checkpoint: LoggedCheckpoint;
      changes: WorkspaceChange[];
      conflicts: string[];
      patch: string;
      uncovered: UncoveredPath[];
    }
  | {
      status: 'restored';
      checkpoint: LoggedCheckpoint;
      changes: WorkspaceChange[];
      overwritten: string[];
      restoredSeq: number;
      uncovered: UncoveredPath[];
    };

/**
 * Rewinds the workspace of `session` to the checkpoint at `to`.
 *
 * @throws a {@link CheckpointFailedError} when the store cannot read or write.
 * @throws a {@link CheckpointStoreMissingError} when the store lost the target (nothing is
 *   changed).
 * @throws an {@link UnsupportedSpecificationError} when the store implements an unknown interface
 *   version.
 * @example
 * ```ts
 * const outcome = await rewindWorkspace({ session, store, to: { turn: 3 }, confirm: askPerson });
 * if (outcome.status === 'refused') console.log('changed outside Spine:', outcome.conflicts);
 * ```
 */
export async function rewindWorkspace(options: RewindOptions): Promise<RewindOutcome> {
  const { session, store } = options;
  assertSpecificationVersion('CheckpointStore', store);
  const checkpoint = await streamedCheckpointAt(session, options.to);
  if (checkpoint === undefined) {
    return { status: 'not-found', message: `the session has no ${describeTarget(options.to)}` };
  }
  const signal = options.signal ? { signal: options.signal } : {};
  // What the store does not cover (ignored, over the cap, nested repositories): named in every
  // outcome, before anything changes.
  const listUncovered = async () => {
    const found = (await store.uncovered?.(signal)) ?? [];
    options.onUncovered?.(found);
    return found;
  };
  if (checkpoint === null) return { status: 'nothing-to-do', uncovered: await listUncovered() };
  const plan = await store
    .restore(checkpoint.body.id, { dryRun: true, ...signal })
    .catch((error: unknown) => {
      // The log recorded this id, so a store that does not know it was deleted or damaged.
      if (!(error instanceof CheckpointNotFoundError)) throw error;
      throw new CheckpointStoreMissingError({ id: checkpoint.body.id, cause: error });
    });
  const uncovered = await listUncovered();
  const known = await streamedLastKnownSnapshot(session);
  // Changed outside this session: since its last checkpoint, and (recorded as `outside` by the
  // recorder) between its checkpoints after the target. A restore that touches them must ask.
  const outside = known ? await store.diff(known, plan.from, signal) : [];
  const recorded = await streamedOutsideSince(session, checkpoint.seq);
  for (const change of outside) recorded.add(change.path);
  const touched = new Set(plan.changes.map((change) => change.path));
  const conflicts = [...recorded].filter((path) => touched.has(path)).sort();
  if (options.dryRun) {
    const patch = await store.patch(plan.from, checkpoint.body.id, signal);
    return { status: 'dry-run', checkpoint, changes: plan.changes, conflicts, patch, uncovered };
  }
  if (plan.changes.length === 0) return { status: 'nothing-to-do', checkpoint, uncovered };
  if (conflicts.length > 0 && !(await options.confirm?.(conflicts))) {
    return { status: 'refused', checkpoint, conflicts, uncovered };
  }
  const result = await store.restore(checkpoint.body.id, signal);
  const storeKind = options.storeKind ?? 'git';
  session.append(
    'workspace/checkpoint',
    checkpointBody(
      { id: result.from, changes: [], skipped: [], ms: 0 },
      { storeKind, reason: 'rewind', scoped: false },
    ),
  );
  const body: WorkspaceRestoredBody = {
    target: checkpoint.body.id,
    targetSeq: checkpoint.seq,
    from: result.from,
    reason: options.reason ?? 'rewind',
    ...listedChanges(result.changes),
  };
  if (conflicts.length > 0) body.overwritten = conflicts;
  if (options.conversation) body.conversation = options.conversation;
  const restored = session.append('workspace/restored', body);
  await session.flush();
  return {
    status: 'restored',
    checkpoint,
    changes: result.changes,
    overwritten: conflicts,
    restoredSeq: restored.seq,
    uncovered,
  };
}

function describeTarget(target: RewindTarget): string {
  if ('seq' in target) return `event ${target.seq}`;
  return target.step === undefined ? `turn ${target.turn}` : `step ${target.turn}.${target.step}`;
}
