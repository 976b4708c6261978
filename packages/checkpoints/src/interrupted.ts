// Finds the tool calls a crash left without a result and verifies each one against the step's
// checkpoint: file tools by hashes, commands by the workspace diff.

import type {
  SessionEvent,
  ToolResultBody,
  ToolStartedBody,
  WorkspaceCheckpointBody,
} from '@spine/protocol';
import type { CheckpointStore } from './checkpoint-store.js';
import { contentHash, type OutcomeVerdict, verifyCommand, verifyFileChange } from './verify.js';

/** A call that reached `tool/started` and has no `tool/result`. */
export interface InterruptedCall {
  /** The call's id. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** The arguments as the model sent them (JSON text). */
  arguments: string;
  /** Seq of its `tool/started`. */
  startedSeq: number;
  /** Turn of its `tool/started`. */
  turn?: number;
  /** Step of its `tool/started`. */
  step?: number;
}

/**
 * What an interrupted call meant to do: change one file (`intended`: the bytes it meant to leave,
 * `null` for a delete; computed from the file's content before the step), run a command, or
 * nothing this check understands.
 */
export type CallIntent =
  | {
      kind: 'file';
      path: string;
      /** The bytes the call meant to leave (`null`: deleted; `undefined`: cannot be computed). */
      intended: (before: Buffer | null) => Buffer | null | undefined;
    }
  | { kind: 'command' }
  | undefined;

/** Every call with a `tool/started` and no `tool/result`, in log order. */
export function interruptedCalls(events: readonly SessionEvent[]): InterruptedCall[] {
  const answered = new Set<string>();
  for (const event of events) {
    if (event.type === 'tool/result') answered.add((event.body as ToolResultBody).toolCallId);
  }
  const calls: InterruptedCall[] = [];
  for (const event of events) {
    if (event.type !== 'tool/started') continue;
    const body = event.body as ToolStartedBody;
    if (answered.has(body.toolCallId)) continue;
    const call: InterruptedCall = {
      toolCallId: body.toolCallId,
      toolName: body.toolName,
      arguments: body.arguments,
      startedSeq: event.seq,
    };
    if (event.turn !== undefined) call.turn = event.turn;
    if (event.step !== undefined) call.step = event.step;
    calls.push(call);
  }
  return calls;
}

/** The checkpoint recorded for the call's step (before its tools ran), if any. */
function stepCheckpoint(
  events: readonly SessionEvent[],
  call: InterruptedCall,
): string | undefined {
  const position = events.findIndex((event) => event.seq === call.startedSeq);
  for (let index = position - 1; index >= 0; index--) {
    const event = events[index] as SessionEvent;
    if (event.type === 'assistant/message' || event.type === 'step/start') return undefined;
    if (event.type === 'workspace/checkpoint' && event.turn === call.turn) {
      return (event.body as WorkspaceCheckpointBody).id;
    }
  }
  return undefined;
}

/** Paths that finished calls of the same step changed, with the hash they left. */
function finishedInStep(
  events: readonly SessionEvent[],
  call: InterruptedCall,
): Map<string, string> {
  const written = new Map<string, string>();
  for (const event of events) {
    if (event.type !== 'tool/result' || event.turn !== call.turn || event.step !== call.step) {
      continue;
    }
    const meta = (event.body as ToolResultBody).meta;
    if (typeof meta?.sourcePath === 'string' && typeof meta.postHash === 'string') {
      written.set(meta.sourcePath, meta.postHash);
    }
  }
  return written;
}

/**
 * The other commands of the call's step (finished or not): their changes to the workspace are in
 * the same diff against the step's checkpoint and cannot be told from this call's.
 */
function otherCommandsInStep(
  events: readonly SessionEvent[],
  call: InterruptedCall,
  intent: (call: InterruptedCall) => CallIntent,
): number {
  let count = 0;
  for (const event of events) {
    if (event.type !== 'tool/started' || event.turn !== call.turn || event.step !== call.step) {
      continue;
    }
    const body = event.body as ToolStartedBody;
    if (body.toolCallId === call.toolCallId) continue;
    const other: InterruptedCall = { ...body, startedSeq: event.seq };
    if (event.turn !== undefined) other.turn = event.turn;
    if (event.step !== undefined) other.step = event.step;
    if (intent(other)?.kind === 'command') count++;
  }
  return count;
}

/**
 * Verifies each interrupted call. Inconclusive checks (no checkpoint for the step, a tool this
 * check does not understand, a file an earlier call of the step also changed, workspace changes
 * a command shares with other commands of its step) give `unknown`. `intent` is asked about the
 * interrupted calls and about the other calls of their steps (finished ones too): a command's
 * changes can only be its own when no other command of the step ran.
 */
export async function verifyInterruptedCalls(input: {
  events: readonly SessionEvent[];
  store: CheckpointStore;
  intent: (call: InterruptedCall) => CallIntent;
}): Promise<Map<string, OutcomeVerdict>> {
  const { events, store } = input;
  const verdicts = new Map<string, OutcomeVerdict>();
  for (const call of interruptedCalls(events)) {
    const intent = input.intent(call);
    const checkpoint = stepCheckpoint(events, call);
    if (!intent) {
      verdicts.set(call.toolCallId, {
        verdict: 'unknown',
        reason: `${call.toolName} is not checked`,
      });
    } else if (!checkpoint) {
      verdicts.set(call.toolCallId, {
        verdict: 'unknown',
        reason: 'no workspace checkpoint was recorded before this step',
      });
    } else if (intent.kind === 'command') {
      const verdict = await verifyCommand({ store, checkpoint });
      const earlier = finishedInStep(events, call);
      if (verdict.verdict === 'files-changed' && earlier.size > 0) {
        verdict.changes = verdict.changes.filter(
          (change) => earlier.get(change.path) === undefined,
        );
      }
      const others =
        verdict.verdict === 'files-changed' && verdict.changes.length > 0
          ? otherCommandsInStep(events, call, input.intent)
          : 0;
      if (verdict.verdict === 'files-changed' && others > 0) {
        const shown = verdict.changes
          .slice(0, 20)
          .map((change) => `${change.kind} ${change.path}`)
          .join(', ');
        const more = verdict.changes.length > 20 ? `, and ${verdict.changes.length - 20} more` : '';
        verdicts.set(call.toolCallId, {
          verdict: 'unknown',
          reason: `files changed since the checkpoint before this step (${shown}${more}), but ${others} other command${others === 1 ? '' : 's'} of this step ran too, so which call changed them cannot be told`,
        });
      } else verdicts.set(call.toolCallId, verdict);
    } else if (finishedInStep(events, call).has(intent.path)) {
      verdicts.set(call.toolCallId, {
        verdict: 'unknown',
        reason: `an earlier call of this step also changed ${intent.path}`,
      });
    } else {
      const recorded = await store.read(checkpoint, intent.path);
      const before = recorded ?? null;
      const intended = intent.intended(before);
      if (intended === undefined) {
        verdicts.set(call.toolCallId, {
          verdict: 'unknown',
          reason: `the change this call meant to make to ${intent.path} cannot be computed`,
        });
        continue;
      }
      let verdict = await verifyFileChange({
        workspace: store.workspace,
        path: intent.path,
        before: before === null ? null : contentHash(before),
        intended: intended === null ? null : contentHash(intended),
      });
      // Not in the snapshot: the file was absent, or left out (ignored, over the size cap). Only
      // "applied" and "still absent" are conclusive then.
      if (recorded === undefined && verdict.verdict === 'changed-elsewhere') {
        verdict = {
          verdict: 'unknown',
          reason: `${intent.path} was not in the checkpoint (ignored or too large)`,
        };
      }
      verdicts.set(call.toolCallId, verdict);
    }
  }
  return verdicts;
}
