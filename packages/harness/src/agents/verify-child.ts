// Verified outcomes of a subagent's interrupted calls after a crash. A child takes no workspace
// checkpoint of its own: the parent's, taken before the step that called `task`, is the evidence.
// Each interrupted call of a child still open in the parent's log is judged against it the way the
// parent's own interrupted calls are (rewind/recovery.ts): a command by the workspace diff, a file
// tool by hashes. The verified result is written into the child's log before the child is closed,
// so the record the parent gets (`files changed: …`) names the files really changed.

import type { CallIntent, InterruptedCall, OutcomeVerdict } from '@spine/checkpoints';
import type {
  ChildEndBody,
  ChildStartBody,
  SessionStore,
  ToolResultBody,
  ToolStartedBody,
  WorkspaceCheckpointBody,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import type { SpineConfig } from '../config/schema.js';
import { checkpointStoreFor } from '../rewind/checkpoint-store.js';
import {
  leftRunningResult,
  mayVerify,
  stopLeftRunning,
  withStopped,
} from '../rewind/left-running.js';
import { intentOf, verifiedResult } from '../rewind/recovery.js';

type CheckpointStore = Awaited<ReturnType<typeof checkpointStoreFor>>;
type Checkpoints = typeof import('@spine/checkpoints');

/** Options of {@link answerChildInterruptedCalls}. */
export interface ChildVerifyOptions {
  store: SessionStore;
  /** The parent session. */
  id: string;
  config: SpineConfig;
  cwd: string;
  warn?: (message: string) => void;
}

/** A child the parent started and never recorded the end of, with the parent's checkpoint. */
interface OpenChild {
  sessionId: string;
  checkpoint: string | undefined;
}

/**
 * The parent's open children, each with the checkpoint of the step whose `task` call started it
 * (recorded after the step's `assistant/message`, before its tools ran).
 */
async function openChildren(store: SessionStore, id: string): Promise<OpenChild[]> {
  const types = [
    'step/start',
    'assistant/message',
    'workspace/checkpoint',
    'tool/started',
    'agent/child/start',
    'agent/child/end',
  ];
  let stepCheckpoint: string | undefined;
  const byCall = new Map<string, string | undefined>();
  const open = new Map<string, { sessionId: string; toolCallId: string }>();
  for await (const event of store.readRange(id, { fromSeq: 1, types })) {
    if (event.type === 'step/start' || event.type === 'assistant/message') {
      stepCheckpoint = undefined;
    } else if (event.type === 'workspace/checkpoint') {
      stepCheckpoint = (event.body as WorkspaceCheckpointBody).id;
    } else if (event.type === 'tool/started') {
      const body = event.body as ToolStartedBody;
      if (body.toolName === 'task') byCall.set(body.toolCallId, stepCheckpoint);
    } else if (event.type === 'agent/child/start') {
      const body = event.body as ChildStartBody;
      open.set(body.sessionId, { sessionId: body.sessionId, toolCallId: body.toolCallId });
    } else {
      open.delete((event.body as ChildEndBody).sessionId);
    }
  }
  return [...open.values()].map((child) => ({
    sessionId: child.sessionId,
    checkpoint: byCall.get(child.toolCallId),
  }));
}

/** A child's calls without a result, and the paths its finished file calls changed. */
async function childCalls(
  store: SessionStore,
  id: string,
): Promise<{ calls: InterruptedCall[]; written: Set<string> }> {
  const started = new Map<string, InterruptedCall>();
  const written = new Set<string>();
  for await (const event of store.readRange(id, {
    fromSeq: 1,
    types: ['tool/started', 'tool/result'],
  })) {
    if (event.type === 'tool/started') {
      const body = event.body as ToolStartedBody;
      const call: InterruptedCall = {
        toolCallId: body.toolCallId,
        toolName: body.toolName,
        arguments: body.arguments,
        startedSeq: event.seq,
      };
      if (event.turn !== undefined) call.turn = event.turn;
      if (event.step !== undefined) call.step = event.step;
      started.set(body.toolCallId, call);
    } else {
      const body = event.body as ToolResultBody;
      started.delete(body.toolCallId);
      if (typeof body.meta?.sourcePath === 'string') written.add(body.meta.sourcePath);
    }
  }
  return { calls: [...started.values()], written };
}

/** The verdict on one interrupted call of a child, against the parent's checkpoint. */
async function verdictFor(
  checkpoints: Checkpoints,
  store: CheckpointStore,
  checkpoint: string,
  intent: CallIntent,
  written: Set<string>,
): Promise<OutcomeVerdict | undefined> {
  if (!intent) return undefined;
  if (intent.kind === 'command') return checkpoints.verifyCommand({ store, checkpoint });
  // A file an earlier call of the child changed has no known "before" at the checkpoint.
  if (written.has(intent.path)) return undefined;
  const recorded = await store.read(checkpoint, intent.path);
  const intended = intent.intended(recorded ?? null);
  if (intended === undefined) return undefined;
  const verdict = await checkpoints.verifyFileChange({
    workspace: store.workspace,
    path: intent.path,
    before: recorded === undefined ? null : checkpoints.contentHash(recorded),
    intended: intended === null ? null : checkpoints.contentHash(intended),
  });
  if (verdict.verdict === 'unknown') return undefined;
  if (recorded === undefined && verdict.verdict === 'changed-elsewhere') return undefined;
  return verdict;
}

const CHILD_NOTE =
  ' (A subagent takes no checkpoint of its own: the comparison is with the checkpoint taken before its parent called it, so files its earlier calls changed are listed too.)';

/** Verifies and answers one open child's interrupted calls; returns how many it answered. */
async function answerChild(
  options: ChildVerifyOptions,
  checkpoints: Checkpoints,
  store: CheckpointStore,
  child: OpenChild & { checkpoint: string },
): Promise<number> {
  const { calls, written } = await childCalls(options.store, child.sessionId);
  // A command the crash left running is stopped before the workspace is judged (left-running.ts).
  const left = await stopLeftRunning(child.sessionId, calls);
  const bodies: ToolResultBody[] = [];
  for (const call of calls) {
    const found = left.get(call.toolCallId);
    if (!mayVerify(found, call.toolName)) {
      if (found && found.state !== 'unchecked') bodies.push(leftRunningResult(call, found));
      continue;
    }
    const intent = await intentOf(call, options.cwd);
    const verdict = await verdictFor(checkpoints, store, child.checkpoint, intent, written);
    if (!verdict) {
      if (found?.state === 'stopped') bodies.push(leftRunningResult(call, found));
      continue;
    }
    const note = verdict.verdict === 'files-changed' ? CHILD_NOTE : '';
    const text = `${checkpoints.verdictText(verdict)}${note}`;
    bodies.push(withStopped(verifiedResult(call, verdict, text), found));
  }
  if (bodies.length === 0) return 0;
  const session = await Session.open({
    store: options.store,
    id: child.sessionId,
    recover: false,
    history: 'lazy',
    snapshots: false,
  });
  try {
    const last = session.get(session.lastSeq);
    const at = last?.turn === undefined ? {} : { turn: last.turn, step: last.step ?? 0 };
    for (const body of bodies)
      session.append('tool/result', body, { ...at, surfaceOp: { op: 'append' } });
    await session.flush();
  } finally {
    await session.close();
  }
  return bodies.length;
}

/**
 * Before a crashed session's children are closed, answers each open child's interrupted calls
 * that the parent's workspace checkpoint can settle (a command: the files changed; a file tool:
 * applied or not), in the child's own log, so the child's record reports the real changes.
 * Returns how many calls it answered; does nothing when checkpoints are off. A failure only costs
 * the check (reported through `warn`): the children are then closed "outcome unknown" as before.
 */
export async function answerChildInterruptedCalls(options: ChildVerifyOptions): Promise<number> {
  if (!options.config.rewind.checkpoints) return 0;
  try {
    const children = (await openChildren(options.store, options.id)).filter(
      (child): child is OpenChild & { checkpoint: string } => child.checkpoint !== undefined,
    );
    if (children.length === 0) return 0;
    const checkpoints = await import('@spine/checkpoints');
    const store = await checkpointStoreFor(options.config, options.cwd);
    let answered = 0;
    for (const child of children) {
      if (!(await options.store.exists(child.sessionId))) continue;
      answered += await answerChild(options, checkpoints, store, child);
    }
    return answered;
  } catch (error) {
    options.warn?.(
      `could not verify the subagents' interrupted tool calls: ${(error as Error).message}`,
    );
    return 0;
  }
}
