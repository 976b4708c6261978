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
}

const MAX_LISTED = 20;

function list(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

/**
 * The parent's `tool/result` for a child: its final answer, then one record line of what it
 * changed. Deterministic (no session id, times or token counts in the content), so a rerun from
 * recorded outputs reproduces it; the ids and usage go in `meta`.
 */
export function renderChildResult(input: ChildResultInput): ToolOutput {
  const { child, reason, changes } = input;
  const record = [
    `subagent ${child.profile.name} ${reason === 'completed' ? 'finished' : `stopped (${reason})`} after ${input.steps} step${input.steps === 1 ? '' : 's'}`,
    `files changed: ${changes.files.length > 0 ? list(changes.files) : 'none'}`,
    `commands run: ${changes.commands.length > 0 ? list(changes.commands) : 'none'}`,
  ].join('; ');
  const answer = input.text.trim();
  const parts =
    reason === 'completed'
      ? [answer === '' ? '(the subagent gave no final answer)' : answer]
      : [
          `The subagent failed: ${input.error ?? reason}.`,
          ...(answer === '' ? [] : [`Its last answer:\n${answer}`]),
        ];
  return {
    content: `${parts.join('\n\n')}\n\n[${record}]`,
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
