import type { ToolDefinition } from '@spine/protocol';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { failureOutput, toolSupport } from './internal/tool-support.js';
import { walkWorkspace } from './internal/walk.js';
import type { WorkspaceToolOptions } from './types.js';

const ListArguments = z.object({
  path: z
    .string()
    .optional()
    .describe('Directory to list, relative to the workspace root. Default: the root.'),
  depth: z
    .number()
    .int()
    .min(1)
    .max(6)
    .optional()
    .describe('How many levels to descend. Default 2.'),
});
/** Arguments of the `list` tool. */
export interface ListToolArguments {
  /** Directory to list (default: the workspace root). */
  path?: string;
  /** Levels to descend (1–6, default 2). */
  depth?: number;
}

const MAX_ENTRIES = 1000;

/** Creates the `list` tool: a directory tree (directories end with `/`; respects `.gitignore`). */
export function createListTool(options: WorkspaceToolOptions): ToolDefinition<ListToolArguments> {
  const support = toolSupport(options);
  return defineTool({
    name: 'list',
    description:
      'List a directory of the workspace as a tree of relative paths (directories end with /). Respects .gitignore.',
    parameters: ListArguments as ZodType<ListToolArguments>,
    isConcurrencySafe: true,
    execute: async (args, context) => {
      try {
        const start = await support.resolve(args.path ?? '.', 'directory');
        if (!start.exists) return { content: `Directory not found: ${args.path}.`, isError: true };
        const root = await support.fs.realpath(support.cwd);
        const lines: string[] = [];
        let more = false;
        const walk = walkWorkspace({
          fs: support.fs,
          root,
          start: start.absolute,
          exclude: support.exclude,
          maxDepth: args.depth ?? 2,
          signal: context.signal,
        });
        for await (const entry of walk) {
          if (lines.length >= MAX_ENTRIES) {
            more = true;
            break;
          }
          lines.push(entry.isDirectory ? `${entry.relative}/` : entry.relative);
        }
        lines.sort();
        if (lines.length === 0)
          return {
            content: `${start.relative}/ is empty.`,
            meta: { sourcePath: start.relative, contentType: 'text/plain', count: 0 },
          };
        if (more)
          lines.push(`[Stopped at ${MAX_ENTRIES} entries; list a subdirectory or lower depth.]`);
        return {
          content: lines.join('\n'),
          meta: {
            sourcePath: start.relative,
            contentType: 'text/plain',
            count: lines.length,
            capped: more,
          },
        };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}
