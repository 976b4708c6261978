import { z } from 'zod';
import { UsageSchema } from './usage.js';

// Bodies of the events a parent session writes around a subagent (a child session started by
// the `task` tool of @spine/subagents). The child's own header links back with
// `parent: { sessionId, atSeq, toolCallId }`; these events link forward, so either side finds
// the other from its own log.

const count = z.number().int().nonnegative();

/** Body of `agent/child/start`: a child session was started for a `task` tool call. */
export const ChildStartBodySchema = z.object({
  sessionId: z.string().min(1).describe('The child session (same store as the parent).'),
  toolCallId: z.string().min(1).describe('The parent tool call the child answers.'),
  profile: z.string().min(1).describe('The agent profile the child runs with.'),
  description: z.string().describe('The short task description the parent model gave.'),
  depth: z.number().int().positive().describe('Nesting depth: 1 for a child of a top session.'),
});
/** Body of `agent/child/start`. */
export type ChildStartBody = z.infer<typeof ChildStartBodySchema>;

/** How a child session ended, as the parent records it. */
export const ChildEndReasonSchema = z.literal([
  'completed',
  'max-steps',
  'aborted',
  'error',
  'interrupted',
  'unknown',
  'stuck',
]);
/** How a child session ended. `unknown`: the process stopped while the child ran. */
export type ChildEndReason = z.infer<typeof ChildEndReasonSchema>;

/** Body of `agent/child/end`: a child session ended (or was closed after a crash). */
export const ChildEndBodySchema = z.object({
  sessionId: z.string().min(1).describe('The child session.'),
  toolCallId: z.string().min(1).describe('The parent tool call the child answered.'),
  reason: ChildEndReasonSchema.describe('How the child ended.'),
  steps: count.optional().describe('Steps the child ran.'),
  usage: UsageSchema.optional().describe(
    "Tokens the child used, its own children's included (rolls up into the parent's totals).",
  ),
  files: z.array(z.string()).optional().describe('Files the child changed (workspace paths).'),
  commands: z.array(z.string()).optional().describe('Commands the child ran.'),
  error: z.string().optional().describe('Why it failed, for every reason but `completed`.'),
});
/** Body of `agent/child/end`. */
export type ChildEndBody = z.infer<typeof ChildEndBodySchema>;
