import { z } from 'zod';
import { JsonValueSchema } from './json.js';
/** What the model sees of a tool: its name, description and JSON Schema parameters. */
export const ToolSpecSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  description: z.string(),
  parameters: z.record(z.string(), JsonValueSchema),
});
//# sourceMappingURL=tool-spec.js.map
