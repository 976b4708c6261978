import { z } from 'zod';

// Body of `tools/changed`: a tool source (an MCP server announcing `tools/list_changed`) changed the
// tool set between steps. The next request records the new list in `tools/defined` and its prefix
// cause `tools-changed`; this event says why. No surface role.

/** Body of `tools/changed`: which source changed the tool set, and how. */
export const ToolsChangedBodySchema = z.object({
  cause: z.string().describe('Why the tool set changed, e.g. `tools changed: server github`.'),
  sources: z.array(z.string()).describe('The tool sources that changed (MCP server names).'),
  added: z.array(z.string()).describe('Tool names added to the set.'),
  removed: z.array(z.string()).describe('Tool names removed from the set.'),
});
/** Body of `tools/changed`. */
export type ToolsChangedBody = z.infer<typeof ToolsChangedBodySchema>;

/**
 * Body of `sampling/answered`: a tool source (an MCP server) asked the client for a model
 * completion, and the session's model answered. The request and the answer are recorded here;
 * the tool result that used it follows as usual. No surface role: the session's own history
 * does not include it.
 */
export const SamplingAnsweredBodySchema = z.object({
  source: z.string().describe('Who asked (the MCP server name).'),
  model: z.string().describe('The model id that answered.'),
  system: z.string().optional().describe('The system prompt the source sent, if any.'),
  messages: z
    .array(z.object({ role: z.string(), text: z.string() }))
    .describe('The messages the source sent, as text.'),
  text: z.string().describe('The answer returned to the source.'),
  finishReason: z.string().describe('Why the model stopped.'),
  usage: z
    .object({
      inputTokens: z.number().int().nonnegative(),
      outputTokens: z.number().int().nonnegative(),
    })
    .optional()
    .describe('Tokens the request used, when the provider reported them.'),
});
/** Body of `sampling/answered`. */
export type SamplingAnsweredBody = z.infer<typeof SamplingAnsweredBodySchema>;
