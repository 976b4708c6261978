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
    .literal(['person', 'config'])
    .describe('`person`: `/plan` or `/implement`; `config`: the session started in plan mode.'),
});
/** Body of `plan/mode`. */
export type PlanModeBody = z.infer<typeof PlanModeBodySchema>;
