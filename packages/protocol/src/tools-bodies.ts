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
