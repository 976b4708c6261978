// The `update_plan` tool (issue 38): the model keeps a short plan of its task, the whole plan each
// call, at most one step in progress. It is an ordinary tool call (approved, recorded, replayed),
// allowed in plan mode (it changes nothing outside the log); its result carries the validated
// steps in `meta.plan`, from which the session's current plan is projected (plan-state.ts).

import {
  type AnyToolDefinition,
  type UpdatePlanArguments,
  UpdatePlanArgumentsSchema,
} from '@spine/protocol';
import { renderPlan, UPDATE_PLAN_TOOL } from './plan-state.js';

const DESCRIPTION = `Keeps a short plan of the current task that the user can follow. Send the whole plan each time: every step in order with its status (pending, in_progress, completed), at most one step in_progress. Use it for tasks of three or more steps; update it as steps finish. Skip it for simple requests.`;

/** Builds the `update_plan` tool with the runtime's `defineTool` (loaded with the tool families). */
export function createUpdatePlanTool(
  defineTool: typeof import('@spine/tool-runtime').defineTool,
): AnyToolDefinition {
  const tool = defineTool<UpdatePlanArguments>({
    name: UPDATE_PLAN_TOOL,
    description: DESCRIPTION,
    parameters: UpdatePlanArgumentsSchema,
    isConcurrencySafe: false,
    execute: async (args) => {
      const parsed = UpdatePlanArgumentsSchema.safeParse(args);
      if (!parsed.success)
        return {
          content: `The plan was not updated: ${parsed.error.issues.map((issue) => issue.message).join('; ')}. Send the whole plan again.`,
          isError: true,
        };
      const { plan, explanation } = parsed.data;
      return {
        content: `Plan updated.\n${renderPlan(plan)}`,
        meta: {
          plan: plan.map((item) => ({ step: item.step, status: item.status })),
          ...(explanation === undefined ? {} : { explanation }),
        },
      };
    },
  });
  return tool as unknown as AnyToolDefinition;
}
