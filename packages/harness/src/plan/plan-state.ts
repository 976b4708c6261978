// The agent's current plan (issue 38), as a projection over the log: the steps of the latest
// successful `update_plan` result (its `meta.plan`), kept in the session's snapshots so a lazily
// opened session knows it without a pass over the whole history. After a compaction folds that
// result away, the plan reaches the model again as a runtime context (`plan`), not as a summary.

import type { JsonValue, PlanStep, SessionEvent, SessionLog } from '@spine/protocol';
import { PlanStepSchema } from '@spine/protocol';
import type { SessionProjection } from '@spine/session-log';

/** The tool's name, as the model calls it. */
export const UPDATE_PLAN_TOOL = 'update_plan';

/** The state of {@link PLAN_STATE}: the latest plan and the seq of the result that set it. */
export interface PlanState {
  /** The steps, in order; empty before the first `update_plan`. */
  steps: PlanStep[];
  /** The seq of the `tool/result` that recorded them (0: none). */
  seq: number;
  // An index signature keeps the state a JsonValue.
  [key: string]: JsonValue;
}

/** The plan a successful `update_plan` result records, or `undefined` for any other event. */
export function planOfEvent(event: SessionEvent): PlanStep[] | undefined {
  if (event.type !== 'tool/result') return undefined;
  const body = event.body as { toolName?: unknown; isError?: unknown; meta?: { plan?: unknown } };
  if (body.toolName !== UPDATE_PLAN_TOOL || body.isError === true) return undefined;
  const parsed = PlanStepSchema.array().safeParse(body.meta?.plan);
  return parsed.success ? parsed.data : undefined;
}

/** The session's current plan, folded over `tool/result` events; part of the agent's projections. */
export const PLAN_STATE: SessionProjection<PlanState> = {
  name: 'harness/plan',
  version: 1,
  types: ['tool/result'],
  initial: () => ({ steps: [], seq: 0 }),
  apply(state, event) {
    const steps = planOfEvent(event);
    return steps ? { steps, seq: event.seq } : state;
  },
};

/** The latest plan of a list of events (a whole recorded session), or an empty one. */
export function latestPlan(events: Iterable<SessionEvent>): PlanState {
  let state = PLAN_STATE.initial();
  for (const event of events) state = PLAN_STATE.apply(state, event);
  return state;
}

/** The marks of a compact checklist, by status. */
const MARKS: Record<PlanStep['status'], string> = {
  completed: '[x]',
  in_progress: '[>]',
  pending: '[ ]',
};

/** The plan as a compact checklist, one line a step, headed by how many are done. */
export function renderPlan(steps: readonly PlanStep[]): string {
  const done = steps.filter((item) => item.status === 'completed').length;
  return [
    `plan (${done}/${steps.length} done)`,
    ...steps.map((item) => `${MARKS[item.status]} ${item.step}`),
  ].join('\n');
}

/**
 * The `plan` runtime context: the current plan while the result that set it is no longer on the
 * surface (a compaction folded it away), else nothing (the model sees the result itself).
 */
export function planContext(session: SessionLog): () => Record<string, string | undefined> {
  let generation = -1;
  let seq = -1;
  let folded = false;
  return () => {
    let state: PlanState | undefined;
    try {
      state = session.projection?.<PlanState>(PLAN_STATE.name);
    } catch {
      // A session opened without the agent's projections (a rerun's) has no plan context.
      return { plan: undefined };
    }
    if (!state || state.seq === 0) return { plan: undefined };
    if (session.replaceGeneration !== generation || state.seq !== seq) {
      generation = session.replaceGeneration;
      seq = state.seq;
      folded = !session.surface().includes(state.seq);
    }
    return { plan: folded ? renderPlan(state.steps) : undefined };
  };
}
