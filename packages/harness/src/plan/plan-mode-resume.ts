// Resuming a session keeps its plan mode (issue 38): the latest `plan/mode` is a projection kept
// in the session's snapshots, so resume reads it without a pass over the log. A session left in
// plan mode resumes in plan mode unless the person chose another policy explicitly for this
// start (`--approval`); either way the outcome is recorded as `plan/mode` with `by: "resume"`.

import type { JsonValue, PlanModeBody } from '@spine/protocol';
import type { SessionProjection } from '@spine/session-log';
import type { ApprovalName } from './plan-mode.js';

/** The state of {@link PLAN_MODE_STATE}: the latest `plan/mode` body, if any. */
export interface PlanModeState {
  /** `plan` or `implement`; `null` before the first `plan/mode`. */
  mode: string | null;
  /** The policy in force before plan mode, when the event named one. */
  previous: string | null;
  // An index signature keeps the state a JsonValue.
  [key: string]: JsonValue;
}

/** The latest `plan/mode` of a session, folded over the log; part of the agent's projections. */
export const PLAN_MODE_STATE: SessionProjection<PlanModeState> = {
  name: 'harness/plan-mode',
  version: 1,
  types: ['plan/mode'],
  initial: () => ({ mode: null, previous: null }),
  apply(_state, event) {
    const body = event.body as PlanModeBody;
    return { mode: body.mode, previous: body.previous ?? null };
  },
};

/**
 * The `plan/mode` change a resume makes, or `undefined` for none: a session whose latest
 * `plan/mode` says `plan` resumes in plan mode (returning later to the policy it had before), unless
 * `chosen` (an explicit `--approval` on this command line) names another policy, which ends plan
 * mode for it.
 */
export function resumePlanMode(
  state: PlanModeState | undefined,
  approval: ApprovalName,
  chosen: boolean,
): PlanModeBody | undefined {
  if (state?.mode !== 'plan' || approval === 'plan') return undefined;
  if (chosen) return { mode: 'implement', approval, previous: 'plan', by: 'resume' };
  const previous = state.previous && state.previous !== 'plan' ? state.previous : approval;
  return { mode: 'plan', approval: 'plan', previous, by: 'resume' };
}
