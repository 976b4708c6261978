// Reading a recorded session for a rerun: the inputs of its turns, its manual compactions and
// approval answers, and how its tool results compare with a rerun's.
import type {
  ApprovalAnswer,
  ApprovalDecision,
  SessionEvent,
  ToolApprovalBody,
  ToolResultBody,
} from '@spine/protocol';

/** One tool result that differs between the recording and the rerun. */
export interface ToolResultDifference {
  /** Position among the session's tool results (0-based). */
  index: number;
  /** The tool (the recorded one, or the rerun's for an extra result). */
  toolName: string;
  /** The call's id. */
  toolCallId: string;
  /** What changed: `missing`, `extra`, `tool`, `error-flag`, `content`. */
  field: 'missing' | 'extra' | 'tool' | 'error-flag' | 'content';
  /** The recorded value (workspace path normalised). */
  expected?: string;
  /** The rerun's value (workspace path normalised). */
  actual?: string;
}

/** How a rerun's tool results compare with the recorded ones. */
export interface RerunComparison {
  /** Recorded tool results. */
  recorded: number;
  /** Tool results of the rerun. */
  rerun: number;
  /** Results equal after normalising the workspace path. */
  same: number;
  /** Every result that differs, in order. */
  differences: ToolResultDifference[];
}

function toolResults(events: readonly SessionEvent[]): ToolResultBody[] {
  return events
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.body as ToolResultBody);
}

function normalize(text: string, cwd: string | undefined): string {
  return cwd ? text.split(cwd).join('<workspace>') : text;
}

/**
 * Compares tool results in order: same tool, same error flag, same content once each
 * session's workspace path is replaced by `<workspace>`.
 */
export function compareToolResults(
  recorded: readonly SessionEvent[],
  rerun: readonly SessionEvent[],
  workspaces: { recorded?: string; rerun?: string },
): RerunComparison {
  const before = toolResults(recorded);
  const after = toolResults(rerun);
  const differences: ToolResultDifference[] = [];
  let same = 0;
  for (let index = 0; index < Math.max(before.length, after.length); index++) {
    const expected = before[index];
    const actual = after[index];
    const base = {
      index,
      toolName: (expected ?? actual)!.toolName,
      toolCallId: (expected ?? actual)!.toolCallId,
    };
    if (!actual) differences.push({ ...base, field: 'missing', expected: expected!.content });
    else if (!expected) differences.push({ ...base, field: 'extra', actual: actual.content });
    else if (expected.toolName !== actual.toolName) {
      differences.push({
        ...base,
        field: 'tool',
        expected: expected.toolName,
        actual: actual.toolName,
      });
    } else if (expected.isError !== actual.isError) {
      differences.push({
        ...base,
        field: 'error-flag',
        expected: String(expected.isError),
        actual: String(actual.isError),
      });
    } else {
      const left = normalize(expected.content, workspaces.recorded);
      const right = normalize(actual.content, workspaces.rerun);
      if (left === right) same++;
      else differences.push({ ...base, field: 'content', expected: left, actual: right });
    }
  }
  return { recorded: before.length, rerun: after.length, same, differences };
}

/** One recorded turn's input, and the inputs typed into it while it ran. */
export interface RecordedTurnInput {
  /** The recorded turn number. */
  turn: number;
  /** The input that started the turn. */
  content: string;
  /** Inputs queued for the next step, with the step they entered. */
  nextStep: { step: number; content: string }[];
}

/** The inputs of each recorded turn, in order. */
export function recordedTurnInputs(events: readonly SessionEvent[]): RecordedTurnInput[] {
  const inputs: RecordedTurnInput[] = [];
  let current: RecordedTurnInput | undefined;
  let turn: number | undefined;
  for (const event of events) {
    if (event.type === 'turn/start') {
      turn = event.turn;
      current = undefined;
    }
    if (event.type !== 'user/message' || turn === undefined) continue;
    const body = event.body as { content: string; source: string; meta?: { queue?: string } };
    if (body.source !== 'user') continue;
    if (!current) {
      current = { turn, content: body.content, nextStep: [] };
      inputs.push(current);
    } else if (body.meta?.queue === 'next-step' && event.step !== undefined) {
      current.nextStep.push({ step: event.step, content: body.content });
    }
  }
  return inputs;
}

/**
 * The recorded approval answers by tool call id: `deny` where the recording denied, else `once`;
 * an answer a hook gave (`by: "hook:…"`) comes back as the same {@link ApprovalDecision}, so the
 * rerun records the same decider and reason. A rerun answers its approvals with them, so a call
 * denied then is denied again.
 */
export function recordedApprovals(
  events: readonly SessionEvent[],
): Map<string, ApprovalAnswer | ApprovalDecision> {
  const answers = new Map<string, ApprovalAnswer | ApprovalDecision>();
  for (const event of events) {
    if (event.type !== 'tool/approval') continue;
    const body = event.body as ToolApprovalBody;
    const answer = body.decision === 'deny' ? 'deny' : 'once';
    answers.set(
      body.toolCallId,
      body.by.startsWith('hook:')
        ? { answer, by: body.by, ...(body.reason === undefined ? {} : { reason: body.reason }) }
        : answer,
    );
  }
  return answers;
}

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
export function isBefore(
  compaction: { seq: number; beforeTurn?: number },
  turn: number | undefined,
): boolean {
  return (
    turn === undefined || (compaction.beforeTurn !== undefined && compaction.beforeTurn <= turn)
  );
}
