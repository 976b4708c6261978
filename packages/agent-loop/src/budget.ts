// Budgets (issue 38): a check the agent runs before each model request. The owner of the check
// (the harness) decides what counts (the session's and its subagents' usage, the price table);
// the loop only records the verdict (`budget/exceeded`) and ends the turn with reason `budget`,
// without sending the request. Raising the limit and continuing the session goes on from there.

import type { BudgetExceededBody, SessionLog } from '@spine/protocol';

/** Where the loop stands when it asks: the turn and the step about to send its request. */
export interface BudgetPosition {
  /** The session the turn writes to. */
  session: SessionLog;
  /** The turn. */
  turn: number;
  /** The step about to run. */
  step: number;
}

/**
 * A budget check: `undefined` to go on, or the limit reached (recorded as `budget/exceeded`).
 * Contract: synchronous and cheap (it runs before every request); it must not throw.
 */
export type BudgetCheck = (position: BudgetPosition) => BudgetExceededBody | undefined;
