// The agent's plan as ACP `plan` updates: each successful `update_plan` result (its `meta.plan`,
// read from the log event, so a live turn and a load send the same update) replaces the plan the
// client shows.
import type { PlanEntry, SessionUpdate } from '@agentclientprotocol/sdk';
import { PLAN_STATE } from '@spine/harness';
import type { SessionEvent } from '@spine/protocol';

/** The `plan` update of a recorded `update_plan` result, or `undefined` for any other event. */
export function planUpdate(event: SessionEvent): SessionUpdate | undefined {
  if (event.type !== 'tool/result') return undefined;
  // The harness's own projection decides what a plan is: it moves only for a valid plan.
  const state = PLAN_STATE.apply(PLAN_STATE.initial(), event);
  if (state.seq !== event.seq) return undefined;
  const entries: PlanEntry[] = state.steps.map((step) => ({
    content: step.step,
    // Spine's plan has no priorities; every entry is `medium`.
    priority: 'medium',
    status: step.status,
  }));
  return { sessionUpdate: 'plan', entries };
}
