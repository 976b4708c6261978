import { z } from 'zod';
import { type JsonSchema, JsonValueSchema } from './json.js';
import { TOOL_NAME_PATTERN } from './tool-name.js';

/** What the model sees of a tool: its name, description and JSON Schema parameters. */
export const ToolSpecSchema = z.object({
  name: z.string().regex(TOOL_NAME_PATTERN),
  description: z.string(),
  parameters: z.record(z.string(), JsonValueSchema),
});
/** What the model sees of a tool. */
export interface ToolSpec {
  /** `[A-Za-z0-9_-]{1,64}`: the widest name every provider accepts. */
  name: string;
  /** What the tool does and when to use it, for the model. */
  description: string;
  /** A JSON Schema object describing the arguments. */
  parameters: JsonSchema;
}
