import type { ChildEndReason, ToolOutput, Usage } from '@spine/protocol';
import type { ChildChanges } from './child-record.js';
import type { ChildInfo } from './types.js';

/** Everything the parent's tool result is rendered from. */
export interface ChildResultInput {
  child: ChildInfo;
  reason: ChildEndReason;
  text: string;
  steps: number;
  changes: ChildChanges;
  usage: Usage;
  error?: string;
  /**
   * The parent's cap on a tool result, in characters (default {@link DEFAULT_MAX_RESULT_CHARS}, at
   * least 1,000): only the answer is cut to fit it; the record after it is always whole.
   */
  maxChars?: number;
}

/** The tool runtime's default cap on a tool result, in characters. */
export const DEFAULT_MAX_RESULT_CHARS = 30_000;

// The record is bounded on its own, so the answer always keeps half the cap or more.
const MAX_LISTED = 20;
const MAX_ENTRY = 240;

/** `text` cut to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutAtCodePoint(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  const code = text.charCodeAt(max - 1);
  // A high surrogate at the end would be left without its pair.
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** One record entry, shortened in the middle when it is very long (a path's end is kept). */
function entry(item: string): string {
  if (item.length <= MAX_ENTRY) return item;
  const head = cutAtCodePoint(item, MAX_ENTRY / 2 - 1);
  let tail = item.slice(item.length - (MAX_ENTRY / 2 - 1));
  const first = tail.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) tail = tail.slice(1);
  return `${head}…${tail}`;
}

function list(items: readonly string[], listed: number): string {
  if (listed === 0) return `${items.length} (not listed: too long for the result cap)`;
  const shown = items.slice(0, listed).map(entry).join(', ');
  return items.length > listed ? `${shown} and ${items.length - listed} more` : shown;
}

/**
 * The record line of a child's result (`[subagent … finished after N steps; files changed: …;
 * commands run: …]`), bounded in length on its own: at most 20 entries per list, each at most 240
 * characters; fewer entries when the record would take more than half of `maxChars`.
 */
export function renderChildRecord(
  input: Pick<ChildResultInput, 'child' | 'reason' | 'steps' | 'changes' | 'maxChars'>,
): string {
  const { child, reason, changes } = input;
  const half = (input.maxChars ?? DEFAULT_MAX_RESULT_CHARS) / 2;
  let record = '';
  for (const listed of [MAX_LISTED, 10, 5, 2, 1, 0]) {
    record = `[${[
      `subagent ${child.profile.name} ${reason === 'completed' ? 'finished' : `stopped (${reason})`} after ${input.steps} step${input.steps === 1 ? '' : 's'}`,
      `files changed: ${changes.files.length > 0 ? list(changes.files, listed) : 'none'}`,
      `commands run: ${changes.commands.length > 0 ? list(changes.commands, listed) : 'none'}`,
    ].join('; ')}]`;
    if (record.length <= half) break;
  }
  return record;
}

/** The answer part, cut (with a note) so that it and the record fit in `budget` characters. */
function fitAnswer(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const note = `\n[The subagent's answer was cut: showing the first part of ${text.length} characters.]`;
  return `${cutAtCodePoint(text, Math.max(0, budget - note.length))}${note}`;
}

/**
 * The parent's `tool/result` for a child: its final answer, then one record line of what it
 * changed. Deterministic (no session id, times or token counts in the content), so a rerun from
 * recorded outputs reproduces it; the ids and usage go in `meta`. The result fits in
 * `input.maxChars`: only the answer is cut (on a code-point boundary), never the record, so the
 * tool runtime's own cap never reaches it.
 */
export function renderChildResult(input: ChildResultInput): ToolOutput {
  const { child, reason } = input;
  const record = renderChildRecord(input);
  const answer = input.text.trim();
  const parts =
    reason === 'completed'
      ? [answer === '' ? '(the subagent gave no final answer)' : answer]
      : [
          `The subagent failed: ${input.error ?? reason}.`,
          ...(answer === '' ? [] : [`Its last answer:\n${answer}`]),
        ];
  const max = input.maxChars ?? DEFAULT_MAX_RESULT_CHARS;
  const body = fitAnswer(parts.join('\n\n'), max - record.length - 2);
  return {
    content: `${body}\n\n${record}`,
    isError: reason !== 'completed',
    meta: {
      childSessionId: child.sessionId,
      profile: child.profile.name,
      reason,
      steps: input.steps,
      usage: { ...input.usage },
    },
  };
}
