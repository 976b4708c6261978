import type { TurnResult } from '../types.js';

// Not exported from the package (issue 16's API review): nothing outside agent-loop uses it, and
// an exit-code policy belongs to the application that sets the codes.

/**
 * The distinctions a CLI turns into exit codes: the turn succeeded, the model or provider
 * failed (including a context overflow nothing could compact), a tool was denied, the step
 * limit or a budget was hit, the model was stuck in a loop, or the user aborted.
 */
export type TurnOutcome =
  | 'success'
  | 'model-failure'
  | 'tool-denied'
  | 'max-steps'
  | 'stuck'
  | 'budget'
  | 'aborted';

/**
 * Classifies a turn result for exit codes. A completed turn in which a tool was denied counts
 * as `tool-denied`: the model answered, but without doing what was asked.
 *
 * @example
 * ```ts
 * const codes = { success: 0, 'model-failure': 2, 'tool-denied': 3, 'max-steps': 4, aborted: 130 };
 * process.exitCode = codes[turnOutcome(await agent.run(task))];
 * ```
 */
export function turnOutcome(result: TurnResult): TurnOutcome {
  switch (result.reason) {
    case 'aborted':
      return 'aborted';
    case 'error':
      return 'model-failure';
    case 'max-steps':
      return 'max-steps';
    case 'stuck':
      return 'stuck';
    case 'budget':
      return 'budget';
    case 'completed':
      return result.deniedTools.length > 0 ? 'tool-denied' : 'success';
  }
}
