import type {
  JsonSchema,
  ToolDefinition,
  ToolExecutionContext,
  ToolOutput,
  ToolPermissions,
} from '@spine/protocol';
import { TOOL_NAME_PATTERN } from '@spine/protocol';
import { type ZodType, z } from 'zod';
import { InvalidToolDefinitionError } from './errors.js';
import { compileArgumentValidator } from './internal/validate.js';

/** Options of {@link defineTool}: the model-facing spec plus the runtime attributes. */
export interface DefineToolOptions<Args> {
  /** `[A-Za-z0-9_-]{1,64}`. */
  name: string;
  /** What the tool does and when to use it, for the model. */
  description: string;
  /** A zod schema (exported to JSON Schema for the model) or a raw JSON Schema object. */
  parameters: ZodType<Args> | JsonSchema;
  /** Runs the tool with validated arguments. */
  execute(args: Args, context: ToolExecutionContext): Promise<ToolOutput>;
  /** Per-call time limit in ms. */
  timeoutMs?: number;
  /** True (or a predicate) only when calls may run in parallel with other safe calls. */
  isConcurrencySafe?: boolean | ((args: Args) => boolean);
  /** What the tool may touch; the approval layer reads it. */
  permissions?: ToolPermissions;
  /** Paths a call mutates, so the runtime serialises calls on the same path. */
  mutatedPaths?: (args: Args) => string[];
  /** Refuses arguments before approval is asked; see `ToolDefinition.precheck`. */
  precheck?: ToolDefinition<Args>['precheck'];
}

function isZodSchema(value: unknown): value is ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as ZodType).parse === 'function'
  );
}

/** A zod 3 schema (`_def` and `parse` but no zod 4 `_zod` internals), which zod 4 cannot export. */
function isZod3Schema(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !('_zod' in value) &&
    '_def' in value &&
    typeof (value as { parse?: unknown }).parse === 'function'
  );
}

/**
 * Converts a zod schema to the JSON Schema the model sees (input side: fields with defaults are
 * optional), or checks and returns a raw JSON Schema.
 *
 * @throws an {@link InvalidToolDefinitionError} when the schema cannot be exported or compiled, or
 *   is a zod 3 schema (zod 4 is required).
 */
export function toParametersSchema(name: string, parameters: ZodType | JsonSchema): JsonSchema {
  let schema: JsonSchema;
  if (isZodSchema(parameters)) {
    try {
      const { $schema: _dialect, ...rest } = z.toJSONSchema(parameters, {
        io: 'input',
      }) as JsonSchema;
      schema = rest;
    } catch (cause) {
      throw new InvalidToolDefinitionError({
        name,
        reason: 'its zod schema cannot be exported to JSON Schema',
        cause,
      });
    }
  } else if (isZod3Schema(parameters)) {
    throw new InvalidToolDefinitionError({
      name,
      reason:
        'its parameters are a zod 3 schema; Spine needs zod 4 (peer dependency zod ^4.0.0): install zod@4 and import from "zod"',
    });
  } else {
    schema = parameters;
  }
  // Models need an object of named arguments; a schema that only lists `properties` means one too.
  if (
    schema.type !== 'object' &&
    !(schema.type === undefined && typeof schema.properties === 'object')
  ) {
    throw new InvalidToolDefinitionError({
      name,
      reason: 'parameters must be a JSON Schema with type "object"',
    });
  }
  try {
    compileArgumentValidator(schema);
  } catch (cause) {
    throw new InvalidToolDefinitionError({
      name,
      reason: `its JSON Schema does not compile (${String(cause)})`,
      cause,
    });
  }
  return schema;
}

/**
 * Defines a tool: validates the name, exports the parameters to JSON Schema and returns a
 * protocol `ToolDefinition` that any `ToolScheduler` can run.
 *
 * @throws an {@link InvalidToolDefinitionError} for a bad name or a schema that does not compile.
 * @example
 * ```ts
 * const echo = defineTool({
 *   name: 'echo',
 *   description: 'Returns its text.',
 *   parameters: z.object({ text: z.string() }),
 *   isConcurrencySafe: true,
 *   execute: async ({ text }) => ({ content: text }),
 * });
 * ```
 */
export function defineTool<Args = Record<string, unknown>>(
  options: DefineToolOptions<Args>,
): ToolDefinition<Args> {
  if (!TOOL_NAME_PATTERN.test(options.name)) {
    throw new InvalidToolDefinitionError({
      name: options.name,
      reason: 'the name must match [A-Za-z0-9_-]{1,64}',
    });
  }
  const parameters = toParametersSchema(options.name, options.parameters as ZodType | JsonSchema);
  const tool: ToolDefinition<Args> = {
    spec: { name: options.name, description: options.description, parameters },
    execute: options.execute,
  };
  if (options.timeoutMs !== undefined) tool.timeoutMs = options.timeoutMs;
  if (options.isConcurrencySafe !== undefined) tool.isConcurrencySafe = options.isConcurrencySafe;
  if (options.permissions !== undefined) tool.permissions = options.permissions;
  if (options.mutatedPaths !== undefined) tool.mutatedPaths = options.mutatedPaths;
  if (options.precheck !== undefined) tool.precheck = options.precheck;
  return tool;
}
