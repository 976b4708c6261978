// Verified outcomes after a crash: before a session with interrupted tool calls is repaired (each
// such call answered "outcome unknown"), the CLI checks what it can against the step's workspace
// checkpoint and answers those calls with the verdict and its evidence. What stays inconclusive is
// left to the session's own recovery ("outcome unknown").

import { relative, resolve, sep } from 'node:path';
import type { CallIntent, InterruptedCall, OutcomeVerdict } from '@spine/checkpoints';
import type {
  JsonObject,
  SessionEvent,
  SessionStore,
  ToolResultBody,
  ToolStartedBody,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import type { SpineConfig } from '../config/schema.js';
import { checkpointStoreFor } from './checkpoint-store.js';
import { leftRunningResult, mayVerify, stopLeftRunning, withStopped } from './left-running.js';

/** Workspace-relative, `/`-separated form of a tool's path argument (undefined outside). */
function workspacePath(workspace: string, path: unknown): string | undefined {
  if (typeof path !== 'string' || path === '') return undefined;
  const inner = relative(workspace, resolve(workspace, path));
  if (inner === '' || inner.startsWith('..')) return undefined;
  return inner.split(sep).join('/');
}

/** What an interrupted call of the built-in tools meant to do. */
export async function intentOf(call: InterruptedCall, workspace: string): Promise<CallIntent> {
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(call.arguments) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (call.toolName === 'bash') return { kind: 'command' };
  const path = workspacePath(workspace, args.path);
  if (path === undefined) return undefined;
  if (call.toolName === 'write' && typeof args.content === 'string') {
    const content = Buffer.from(args.content, 'utf8');
    return { kind: 'file', path, intended: () => content };
  }
  if (call.toolName === 'edit' && Array.isArray(args.edits)) {
    const { applyEdits } = await import('@spine/tool-runtime');
    const edits = args.edits as Parameters<typeof applyEdits>[1];
    return {
      kind: 'file',
      path,
      intended: (before) => {
        if (before === null) return undefined;
        const applied = applyEdits(before.toString('utf8'), edits);
        return 'problem' in applied ? undefined : Buffer.from(applied.text, 'utf8');
      },
    };
  }
  return undefined;
}

/** The `tool/result` that answers a call with a conclusive verdict. */
export function verifiedResult(
  call: InterruptedCall,
  verdict: OutcomeVerdict,
  text: string,
): ToolResultBody {
  const evidence: JsonObject = { verdict: verdict.verdict, verifiedAfterCrash: true };
  if ('path' in verdict) {
    evidence.sourcePath = verdict.path;
    evidence.currentHash = verdict.hash;
  }
  if (verdict.verdict === 'changed-elsewhere') {
    evidence.preHash = verdict.before;
    evidence.postHash = verdict.intended;
  }
  if (verdict.verdict === 'files-changed') {
    evidence.checkpoint = verdict.checkpoint;
    evidence.changedFiles = verdict.changes.map((change) => `${change.kind} ${change.path}`);
  }
  const outcome: ToolResultBody['outcome'] =
    verdict.verdict === 'applied'
      ? 'ok'
      : verdict.verdict === 'files-changed'
        ? 'aborted'
        : 'error';
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    content: text,
    isError: verdict.verdict !== 'applied',
    outcome,
    meta: evidence,
  };
}

/**
 * Answers the interrupted calls of session `id` whose outcome the workspace checkpoints can
 * settle. Opens the session without its own repair, appends the verified results, closes it;
 * returns how many calls it answered. Does nothing when checkpoints are off.
 */
export async function answerInterruptedCalls(options: {
  store: SessionStore;
  id: string;
  config: SpineConfig;
  cwd: string;
  warn?: (message: string) => void;
}): Promise<number> {
  if (!options.config.rewind.checkpoints) return 0;
  try {
    return await answerVerifiable(options);
  } catch (error) {
    // A locked session is reported by the open that follows; anything else only costs the check.
    if ((error as { code?: string }).code !== 'SESSION_LOCKED') {
      options.warn?.(`could not verify interrupted tool calls: ${(error as Error).message}`);
    }
    return 0;
  }
}

async function answerVerifiable(options: {
  store: SessionStore;
  id: string;
  config: SpineConfig;
  cwd: string;
}): Promise<number> {
  // Most resumes follow a clean stop: a streamed pass (nothing held) rules interrupted calls out
  // before anything else is read, and otherwise names the step where the earliest one began.
  const from = await interruptedStepStart(options.store, options.id);
  if (from === undefined) return 0;
  const session = await Session.open({
    store: options.store,
    id: options.id,
    recover: false,
    history: 'lazy',
    snapshots: false,
  });
  try {
    return await answerInterruptedCallsIn(session, from, options);
  } finally {
    await session.close();
  }
}

/**
 * Answers, in an open session (opened with `recover: false`), the interrupted calls whose
 * outcome can be settled, reading the log only from `from` (the `step/start` of the step where
 * the earliest interrupted call began: every interrupted call, its step's checkpoint and the
 * step's finished calls are there, as a result always follows its call). First the commands a
 * crash left running are stopped ({@link stopLeftRunning}); then, with checkpoints on, each call
 * gets its verified verdict, unless something of it may still run; a call whose processes were
 * found gets a result saying so either way. Appends the results and flushes; returns how many
 * calls it answered. The rest is left to the session's own recovery ("outcome unknown").
 */
export async function answerInterruptedCallsIn(
  session: Session,
  from: number,
  options: { config: SpineConfig; cwd: string },
): Promise<number> {
  const checkpoints = await import('@spine/checkpoints');
  const events: SessionEvent[] = [];
  for await (const event of session.readEvents({ fromSeq: from })) events.push(event);
  const calls = checkpoints.interruptedCalls(events);
  if (calls.length === 0) return 0;
  // Stopped before any verdict: the workspace is no outcome while the command still changes it.
  const left = await stopLeftRunning(session.id, calls);
  const verdicts = options.config.rewind.checkpoints
    ? await verdictsOf(session, events, calls, options)
    : new Map<string, OutcomeVerdict>();
  const last = [...events].reverse().find((event) => event.turn !== undefined);
  const at = last ? { turn: last.turn as number, step: last.step ?? 0 } : {};
  let answered = 0;
  for (const call of calls) {
    const verdict = verdicts.get(call.toolCallId);
    const found = left.get(call.toolCallId);
    let body: ToolResultBody | undefined;
    if (verdict && verdict.verdict !== 'unknown' && mayVerify(found, call.toolName))
      body = withStopped(verifiedResult(call, verdict, checkpoints.verdictText(verdict)), found);
    else if (found && found.state !== 'unchecked') body = leftRunningResult(call, found);
    if (!body) continue;
    session.append('tool/result', body, { ...at, surfaceOp: { op: 'append' } });
    answered++;
  }
  await session.flush();
  return answered;
}

/** The workspace checkpoints' verdicts on `calls`, by call id. */
async function verdictsOf(
  session: Session,
  events: SessionEvent[],
  calls: InterruptedCall[],
  options: { config: SpineConfig; cwd: string },
): Promise<Map<string, OutcomeVerdict>> {
  const checkpoints = await import('@spine/checkpoints');
  const workspace = session.header.cwd ?? options.cwd;
  // Every started call's intent, not only the interrupted ones': a command's changes are its own
  // only when no other command of its step ran (verifyInterruptedCalls asks about those too).
  const intents = new Map<string, CallIntent>();
  for (const call of calls) intents.set(call.toolCallId, await intentOf(call, workspace));
  for (const event of events) {
    if (event.type !== 'tool/started') continue;
    const body = event.body as ToolStartedBody;
    if (intents.has(body.toolCallId)) continue;
    // Only whether it is a command matters for a finished call: no file content is computed.
    if (body.toolName === 'bash') intents.set(body.toolCallId, { kind: 'command' });
  }
  const store = await checkpointStoreFor(options.config, workspace);
  return await checkpoints.verifyInterruptedCalls({
    events,
    store,
    intent: (call) => intents.get(call.toolCallId),
  });
}

/**
 * The seq of the `step/start` before the earliest `tool/started` that no `tool/result` answers
 * (1 when that call has none), read as a stream of those three types; undefined when every call
 * was answered, so `interruptedCalls` would find none.
 */
async function interruptedStepStart(store: SessionStore, id: string): Promise<number | undefined> {
  const open = new Map<string, number>();
  let stepStart = 1;
  const types = ['step/start', 'tool/started', 'tool/result'];
  for await (const event of store.readRange(id, { fromSeq: 1, types })) {
    if (event.type === 'step/start') {
      stepStart = event.seq;
      continue;
    }
    const { toolCallId } = event.body as { toolCallId: string };
    if (event.type === 'tool/started') open.set(toolCallId, stepStart);
    else open.delete(toolCallId);
  }
  return open.size > 0 ? Math.min(...open.values()) : undefined;
}
