// Records workspace checkpoints into a session: before each step that may change files (the
// agent loop's `beforeTools` seam) and after a turn that changed them.

import { relative, resolve, sep } from 'node:path';
import {
  assertSpecificationVersion,
  type SessionLog,
  type ToolCallPart,
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
 * @throws {UnsupportedSpecificationError} when the store implements an unknown interface version.
 */
export function createCheckpointRecorder(options: CheckpointRecorderOptions): CheckpointRecorder {
  assertSpecificationVersion('CheckpointStore', options.store);
  const storeKind = options.storeKind ?? 'git';
  const turnsWithCheckpoint = new Set<number>();
  // What this session's agent may have changed since its last checkpoint, by session id: the
  // paths of the last step's file tools, or `workspace` after a call that may change anything.
  const agentChanged = new Map<string, Set<string> | 'workspace'>();
  const record = async (
    session: SessionLog,
    reason: 'step' | 'turn-end',
    at: { turn: number; step: number },
    signal?: AbortSignal,
  ) => {
    const checkpoint = await options.store.checkpoint(signal ? { signal } : {});
    const body = checkpointBody(checkpoint, { storeKind, reason, scoped: false });
    const outside = outsidePaths(options.store.workspace, checkpoint, agentChanged.get(session.id));
    if (outside.length > 0) body.outside = outside;
    session.append('workspace/checkpoint', body, at);
  };
  return {
    async beforeTools({ session, turn, step, calls, signal }) {
      let effect: Set<string> | 'workspace' | undefined;
      for (const call of calls) {
        const one = options.classify(call);
        if (one === undefined) continue;
        if (one === 'workspace' || effect === 'workspace') effect = 'workspace';
        else effect = new Set([...(effect ?? []), ...one.paths]);
      }
      if (effect === undefined) return;
      // Always the whole workspace: a checkpoint of only the step's paths lost what earlier
      // steps wrote elsewhere, and a rewind to it deleted those files.
      await record(session, 'step', { turn, step }, signal);
      turnsWithCheckpoint.add(turn);
      agentChanged.set(session.id, effect);
    },
    async afterSteps({ session, turn, step }) {
      if (!turnsWithCheckpoint.delete(turn)) return;
      await record(session, 'turn-end', { turn, step });
      // Between turns the agent changes nothing: all a later checkpoint sees is from outside.
      agentChanged.set(session.id, new Set());
    },
  };
}

/**
 * The changes of `checkpoint` this session's agent did not make: all of them when it knows of no
 * agent step since the previous checkpoint (a new process, or between turns), none after a call
 * that may change anything, else those outside the last step's file-tool paths.
 */
function outsidePaths(
  workspace: string,
  checkpoint: Checkpoint,
  agent: Set<string> | 'workspace' | undefined,
): string[] {
  if (agent === 'workspace' || !checkpoint.previous) return [];
  const own = new Set([...(agent ?? [])].map((path) => relativePath(workspace, path)));
  return checkpoint.changes.map((change) => change.path).filter((path) => !own.has(path));
}

function relativePath(workspace: string, path: string): string {
  return relative(workspace, resolve(workspace, path)).split(sep).join('/');
}
