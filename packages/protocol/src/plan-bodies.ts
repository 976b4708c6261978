import { z } from 'zod';

// Bodies of the events of plan mode (issue 38): a person switching the session into plan mode,
// where nothing with effects runs, and back to the policy that was in force before. They never
// take part in a model request; the system prompt section of plan mode is recorded as usual.

/** The approval policies a session can be in, as the harness names them. */
const ApprovalPolicyNameSchema = z
  .string()
  .min(1)
  .max(64)
  .describe('An approval policy: ask, auto-edit, never-ask, deny-all or plan.');

/**
 * Body of `plan/mode`: the session entered plan mode (`plan`) or a person chose to implement the
 * plan (`implement`: the previous policy is back in force). The latest one wins.
 */
export const PlanModeBodySchema = z.object({
  mode: z
    .literal(['plan', 'implement'])
    .describe('`plan`: plan mode is on; `implement`: it was left for `approval`.'),
  approval: ApprovalPolicyNameSchema.describe('The approval policy in force from here on.'),
  previous: ApprovalPolicyNameSchema.optional().describe(
    'The policy in force before; the one `implement` returns to after `plan`.',
  ),
  by: z
    .literal(['person', 'config', 'resume'])
    .describe(
      '`person`: `/plan` or `/implement`; `config`: the session started in plan mode; `resume`: a resume kept plan mode, or left it for an explicit `--approval`.',
    ),
});
/** Body of `plan/mode`. */
export type PlanModeBody = z.infer<typeof PlanModeBodySchema>;

/** The status of one step of the agent's plan. */
export const PlanStepStatusSchema = z
  .literal(['pending', 'in_progress', 'completed'])
  .describe('`pending`, `in_progress` (at most one step at a time) or `completed`.');

/** One step of the agent's plan, as `update_plan` takes and records it. */
export const PlanStepSchema = z.object({
  step: z.string().trim().min(1).max(400).describe('What the step does, in one line.'),
  status: PlanStepStatusSchema,
});
/** One step of the agent's plan. */
export type PlanStep = z.infer<typeof PlanStepSchema>;

/**
 * Arguments of the `update_plan` tool: the whole plan each time (the latest call wins), with at
 * most one step in progress. Its result's `meta.plan` carries the validated steps, so the
 * session's current plan is a projection over `tool/result` events.
 */
export const UpdatePlanArgumentsSchema = z
  .object({
    explanation: z
      .string()
      .max(2000)
      .optional()
      .describe('Optional: why the plan changed, in a sentence.'),
    plan: z
      .array(PlanStepSchema)
      .min(1)
      .max(50)
      .describe('Every step of the plan, in order, with its status.'),
  })
  .refine((value) => value.plan.filter((item) => item.status === 'in_progress').length <= 1, {
    message: 'at most one step may be in_progress at a time',
    path: ['plan'],
  });
/** Arguments of the `update_plan` tool. */
export type UpdatePlanArguments = z.infer<typeof UpdatePlanArgumentsSchema>;

/**
 * Body of `budget/exceeded`: a cost or token budget was reached before a model request, so the
 * turn ended (`turn/end` with reason `budget`) without sending it. Spent figures include the
 * subagents' usage; raise the limit and continue the session to go on.
 */
export const BudgetExceededBodySchema = z.object({
  scope: z.literal(['turn', 'session']).describe('Whether the limit is per turn or per session.'),
  limit: z.literal(['cost', 'tokens']).describe('`cost` (USD) or `tokens` (all usage buckets).'),
  spent: z.number().nonnegative().describe('What was spent in that scope, in USD or tokens.'),
  max: z.number().nonnegative().describe('The limit in force.'),
  message: z.string().describe('What was spent, for people.'),
});
/** Body of `budget/exceeded`. */
export type BudgetExceededBody = z.infer<typeof BudgetExceededBodySchema>;
