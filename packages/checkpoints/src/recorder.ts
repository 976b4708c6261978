// Records workspace checkpoints into a session: before each step that may change files (the
// agent loop's `beforeTools` seam) and after a turn that changed them.

import {
  assertSpecificationVersion,
  type SessionLog,
  type ToolCallPart,
  type UnsupportedSpecificationError,
  type WorkspaceCheckpointBody,
  type WorkspacePathChange,
} from '@spine/protocol';
import type { Checkpoint, CheckpointStore, WorkspaceChange } from './checkpoint-store.js';

/** How a tool call may change the workspace: only `paths`, anything (`workspace`), or nothing. */
export type CallEffect = { paths: readonly string[] } | 'workspace' | undefined;

/** Options of {@link createCheckpointRecorder}. */
export interface CheckpointRecorderOptions {
  /** Where the snapshots go. */
  store: CheckpointStore;
  /** Store kind written into the events (default `git`). */
  storeKind?: string;
  /** Says how a call may change the workspace (from the tool's definition and the sandbox mode). */
  classify(call: ToolCallPart): CallEffect;
}

/** What the recorder is told before a step's tools run (the agent loop's `BeforeToolsInput`). */
export interface BeforeStepTools {
  /** The session the step writes to. */
  session: SessionLog;
  /** The step's turn. */
  turn: number;
  /** The step. */
  step: number;
  /** The calls about to run. */
  calls: readonly ToolCallPart[];
  /** The turn's abort signal. */
  signal?: AbortSignal;
}

/** What the recorder offers the agent loop and the CLI. */
export interface CheckpointRecorder {
  /** The agent loop's `beforeTools` hook: a checkpoint when any call may change files. */
  beforeTools(input: BeforeStepTools): Promise<void>;
  /**
   * The agent loop's `beforeTurnEnd` hook: when the turn recorded a step checkpoint, a full one
   * (`reason: 'turn-end'`) of what the turn left, so the log holds the workspace as Spine left it.
   */
  afterSteps(input: { session: SessionLog; turn: number; step: number }): Promise<void>;
  /**
   * Resolves when the snapshots of what each step left (taken in the background when a step
   * ends) are done. Edits made while one is being taken count as the step's.
   */
  idle(): Promise<void>;
}

const MAX_LISTED = 200;

/** The changes as an event lists them (at most 200, the rest counted). */
export function listedChanges(changes: readonly WorkspaceChange[]): {
  changes: WorkspacePathChange[];
  moreChanges?: number;
} {
  const listed = changes.slice(0, MAX_LISTED).map(({ path, kind }) => ({ path, kind }));
  return changes.length > MAX_LISTED
    ? { changes: listed, moreChanges: changes.length - MAX_LISTED }
    : { changes: listed };
}

/** The `workspace/checkpoint` body for `checkpoint`. */
export function checkpointBody(
  checkpoint: Checkpoint,
  options: { storeKind: string; reason: WorkspaceCheckpointBody['reason']; scoped: boolean },
): WorkspaceCheckpointBody {
  const body: WorkspaceCheckpointBody = {
    id: checkpoint.id,
    store: options.storeKind,
    reason: options.reason,
    scope: options.scoped ? 'paths' : 'workspace',
    ...listedChanges(checkpoint.changes),
    ms: Math.round(checkpoint.ms * 10) / 10,
  };
  if (checkpoint.previous) body.previous = checkpoint.previous;
  if (checkpoint.skipped.length > 0) body.skipped = checkpoint.skipped;
  return body;
}

/**
 * Creates a recorder that writes `workspace/checkpoint` events of the whole workspace: before a
 * step whose calls may change files, and after the last step of a turn that recorded one.
 *
 * @throws an {@link UnsupportedSpecificationError} when the store implements an unknown interface
 *   version.
 */
export function createCheckpointRecorder(options: CheckpointRecorderOptions): CheckpointRecorder {
  assertSpecificationVersion('CheckpointStore', options.store);
  const { store } = options;
  const storeKind = options.storeKind ?? 'git';
  const turnsWithCheckpoint = new Set<number>();
  const sessions = new Map<string, SessionState>();
  const stateOf = (session: SessionLog): SessionState => {
    let state = sessions.get(session.id);
    if (!state) {
      const created: SessionState = { stepOpen: false };
      // The workspace as the step left it: snapshotted when the step ends (its tools are done),
      // while the model answers; what differs from it at the next checkpoint is not the agent's.
      session.subscribe((event) => {
        if (event.type !== 'step/end' || !created.stepOpen) return;
        created.stepOpen = false;
        created.left = store.checkpoint().then(
          (checkpoint) => checkpoint.id,
          () => undefined,
        );
      });
      sessions.set(session.id, created);
      state = created;
    }
    return state;
  };
  const record = async (
    session: SessionLog,
    reason: 'step' | 'turn-end',
    at: { turn: number; step: number },
    signal?: AbortSignal,
  ): Promise<string> => {
    const state = stateOf(session);
    const left = await state.left;
    const unknownStep = state.stepOpen;
    const checkpoint = await store.checkpoint(signal ? { signal } : {});
    if (state.logged && checkpoint.previous !== state.logged) {
      // The step-end snapshot is not logged: changes are since the last logged checkpoint.
      checkpoint.changes = await store.diff(state.logged, checkpoint.id);
      checkpoint.previous = state.logged;
    }
    state.logged = checkpoint.id;
    const body = checkpointBody(checkpoint, { storeKind, reason, scoped: false });
    let outside: string[] = [];
    if (left) outside = (await store.diff(left, checkpoint.id)).map((change) => change.path);
    else if (unknownStep || checkpoint.previous) {
      // No record of what the last step left (a step that failed before its end, or a session
      // resumed in a new process): nothing tells the agent's changes apart, so none are its own.
      outside = checkpoint.changes.map((change) => change.path);
    }
    if (outside.length > 0) body.outside = outside.slice(0, 200);
    session.append('workspace/checkpoint', body, at);
    return checkpoint.id;
  };
  return {
    async beforeTools({ session, turn, step, calls, signal }) {
      if (!calls.some((call) => options.classify(call) !== undefined)) return;
      // Always the whole workspace: a checkpoint of only the step's paths lost what earlier
      // steps wrote elsewhere, and a rewind to it deleted those files.
      await record(session, 'step', { turn, step }, signal);
      turnsWithCheckpoint.add(turn);
      const state = stateOf(session);
      state.stepOpen = true;
      delete state.left;
    },
    async afterSteps({ session, turn, step }) {
      if (!turnsWithCheckpoint.delete(turn)) return;
      const id = await record(session, 'turn-end', { turn, step });
      // Between turns the agent changes nothing: all a later checkpoint sees is from outside.
      const state = stateOf(session);
      state.stepOpen = false;
      state.left = Promise.resolve(id);
    },
    async idle() {
      await Promise.all([...sessions.values()].map((state) => state.left));
    },
  };
}

/** What the recorder knows of one session between checkpoints. */
interface SessionState {
  /** A step checkpoint was recorded and the step has not ended yet. */
  stepOpen: boolean;
  /** The last checkpoint this recorder logged for the session. */
  logged?: string;
  /** The snapshot of what the last step (or turn) left, once taken. */
  left?: Promise<string | undefined>;
}
