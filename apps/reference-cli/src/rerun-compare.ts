import type { SessionEvent, ToolResultBody } from '@spine/protocol';

/** One tool result that differs between the recording and the rerun. */
export interface ToolResultDifference {
  /** Position among the session's tool results (0-based). */
  index: number;
  toolName: string;
  toolCallId: string;
  /** What changed: `missing`, `extra`, `tool`, `error-flag`, `content`. */
  field: 'missing' | 'extra' | 'tool' | 'error-flag' | 'content';
  expected?: string;
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
