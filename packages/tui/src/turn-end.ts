// How a turn ended, in one sentence for people (the REPL and `spine run` print it after a turn).
import type { TurnResult } from '@spine/agent-loop';
import { visibleText } from '@spine/protocol';

/** One sentence on how a turn ended, for people. */
export function describeTurnEnd(result: TurnResult): string {
  switch (result.reason) {
    case 'completed':
      return result.deniedTools.length
        ? `completed, but denied: ${visibleText(result.deniedTools.join(', '))}`
        : `completed in ${result.steps} step${result.steps === 1 ? '' : 's'}`;
    case 'max-steps':
      return `stopped at the step limit (${result.steps} steps); raise --max-steps or continue with spine resume`;
    case 'stuck':
      return `stopped: ${visibleText(result.error?.message ?? 'the model was stuck in a loop')}`;
    case 'aborted':
      return 'aborted';
    case 'budget':
      return `stopped: ${visibleText(result.budget?.message ?? 'a budget is reached')}`;
    default:
      return `failed: ${visibleText(result.error?.message ?? 'unknown error')}`;
  }
}
