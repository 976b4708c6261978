// Type tests for defineTool's generics; `tsc -b` checks them (they are part of the package build).
import type { ToolDefinition } from '@spine/protocol';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';

const fromZod = defineTool({
  name: 'typed',
  description: 'typed',
  parameters: z.object({ path: z.string(), limit: z.number().optional() }),
  mutatedPaths: (args) => {
    expectTypeOf(args.path).toEqualTypeOf<string>();
    expectTypeOf(args.limit).toEqualTypeOf<number | undefined>();
    return [args.path];
  },
  execute: async (args) => ({ content: args.path }),
});
expectTypeOf(fromZod).toMatchTypeOf<ToolDefinition<{ path: string; limit?: number | undefined }>>();

const fromJsonSchema = defineTool<{ n: number }>({
  name: 'raw',
  description: 'raw',
  parameters: { type: 'object', properties: { n: { type: 'number' } } },
  execute: async ({ n }) => ({ content: String(n + 1) }),
});
expectTypeOf(fromJsonSchema).toEqualTypeOf<ToolDefinition<{ n: number }>>();
// A definition of any argument type is accepted where a runtime takes `ToolDefinition<never>`.
expectTypeOf(fromZod).toMatchTypeOf<ToolDefinition<never>>();
