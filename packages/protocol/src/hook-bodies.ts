import { z } from 'zod';
import { JsonValueSchema } from './json.js';

// The user hooks' side of the log (issue 38): every run of a hook command is recorded as
// `hook/run`, and each hook event hands its command one JSON object on stdin, whose shape is
// published here (`HookInputSchemas`) beside the log format.

/** The hook events a person can attach shell commands to. */
export const HookEventSchema = z.literal([
  'session-start',
  'pre-tool-use',
  'post-tool-use',
  'pre-compact',
  'stop',
  'user-prompt-submit',
  'permission-request',
  'post-compact',
  'subagent-start',
  'subagent-stop',
  'session-end',
  'notification',
]);
/** A hook event. */
export type HookEventName = z.infer<typeof HookEventSchema>;

/** Body of `hook/run`: one run of one hook command. */
export const HookRunBodySchema = z.object({
  event: HookEventSchema.describe('The hook event.'),
  command: z.string().describe('The command line, as configured.'),
  exitCode: z.number().int().nullable().describe('Its exit code (`null`: killed by a signal).'),
  timedOut: z.boolean().describe('True when it was killed at its timeout.'),
  durationMs: z.number().nonnegative().describe('How long it ran.'),
  decision: z
    .literal(['none', 'allow', 'deny', 'ask', 'block', 'rewrite', 'feedback'])
    .describe(
      'What came of it: `none` (no opinion), `allow` / `deny` / `ask` (a tool call or permission), `block` / `rewrite` (a prompt), `feedback` (post-tool-use text for the model).',
    ),
  reason: z.string().optional().describe('The reason it gave, or why it failed.'),
  stdout: z.string().describe('Its stdout, cut to 2,000 characters.'),
  stderr: z.string().describe('Its stderr, cut to 2,000 characters.'),
  truncated: z.boolean().optional().describe('True when stdout or stderr was cut.'),
});
/** Body of `hook/run`. */
export type HookRunBody = z.infer<typeof HookRunBodySchema>;

const base = {
  sessionId: z.string().describe('The session.'),
  cwd: z.string().describe('The workspace.'),
};

const inputs = {
  'session-start': z.object({
    event: z.literal('session-start'),
    ...base,
    resumed: z.boolean().describe('True when an existing session was resumed.'),
    model: z.string().describe('The model, `provider/model`.'),
  }),
  'pre-tool-use': z.object({
    event: z.literal('pre-tool-use'),
    ...base,
    toolName: z.string(),
    toolCallId: z.string(),
    args: JsonValueSchema.describe('The parsed, validated arguments.'),
  }),
  'post-tool-use': z.object({
    event: z.literal('post-tool-use'),
    ...base,
    toolName: z.string(),
    toolCallId: z.string(),
    args: JsonValueSchema,
    result: z.object({ content: z.string(), isError: z.boolean() }),
  }),
  'pre-compact': z.object({
    event: z.literal('pre-compact'),
    ...base,
    reason: z.string().describe('`pressure`, `overflow` or `manual`.'),
    focus: z.string().optional(),
  }),
  stop: z.object({ event: z.literal('stop'), ...base, reason: z.string() }),
  'user-prompt-submit': z.object({
    event: z.literal('user-prompt-submit'),
    ...base,
    prompt: z.string().describe('The prompt as typed.'),
  }),
  'permission-request': z.object({
    event: z.literal('permission-request'),
    ...base,
    toolName: z.string(),
    toolCallId: z.string(),
    args: JsonValueSchema,
    reason: z.string().describe('Why approval is needed.'),
  }),
  'post-compact': z.object({
    event: z.literal('post-compact'),
    ...base,
    compactionId: z.number().int().optional(),
    tokensBefore: z.number().optional(),
    tokensAfter: z.number().optional(),
  }),
  'subagent-start': z.object({
    event: z.literal('subagent-start'),
    ...base,
    childSessionId: z.string(),
    profile: z.string(),
    description: z.string(),
  }),
  'subagent-stop': z.object({
    event: z.literal('subagent-stop'),
    ...base,
    childSessionId: z.string(),
    profile: z.string(),
    reason: z.string().describe("The child's end reason (`completed`, `error`, …)."),
  }),
  'session-end': z.object({
    event: z.literal('session-end'),
    ...base,
    reason: z.string(),
    turns: z.number().int().nonnegative(),
  }),
  notification: z.object({
    event: z.literal('notification'),
    ...base,
    kind: z.literal(['permission']).describe('Why the agent waits for a person.'),
    message: z.string(),
  }),
} as const satisfies Record<HookEventName, z.ZodType>;

/**
 * What a hook command reads on stdin: one JSON object with `event`, `sessionId`, `cwd` and the
 * event's fields, one shape per event. Published beside the log format
 * (`docs/architecture/hook-input.schema.json`).
 */
export const HookInputSchema = z.discriminatedUnion('event', [
  inputs['session-start'],
  inputs['pre-tool-use'],
  inputs['post-tool-use'],
  inputs['pre-compact'],
  inputs.stop,
  inputs['user-prompt-submit'],
  inputs['permission-request'],
  inputs['post-compact'],
  inputs['subagent-start'],
  inputs['subagent-stop'],
  inputs['session-end'],
  inputs.notification,
]);
/** What a hook command reads on stdin. */
export type HookInput = z.infer<typeof HookInputSchema>;
