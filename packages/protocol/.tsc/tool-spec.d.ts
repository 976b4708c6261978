import { z } from 'zod';
import { type JsonSchema } from './json.js';
/** What the model sees of a tool: its name, description and JSON Schema parameters. */
export declare const ToolSpecSchema: z.ZodObject<
  {
    name: z.ZodString;
    description: z.ZodString;
    parameters: z.ZodRecord<
      z.ZodString,
      z.ZodType<
        import('./json.js').JsonValue,
        unknown,
        z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
      >
    >;
  },
  z.core.$strip
>;
/** What the model sees of a tool. */
export interface ToolSpec {
  /** `[A-Za-z0-9_-]{1,64}`: the widest name every provider accepts. */
  name: string;
  /** What the tool does and when to use it, for the model. */
  description: string;
  /** A JSON Schema object describing the arguments. */
  parameters: JsonSchema;
}
//# sourceMappingURL=tool-spec.d.ts.map
