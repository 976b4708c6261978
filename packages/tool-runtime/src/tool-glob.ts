import type { ToolDefinition } from '@spine/protocol';
import picomatch from 'picomatch';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { failureOutput, toolSupport } from './internal/tool-support.js';
import { walkWorkspace } from './internal/walk.js';
import type { WorkspaceToolOptions } from './types.js';

const GlobArguments = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob matched against paths relative to the workspace root or to `path`, e.g. "src/**/*.ts", or "*.ts" with path "src".',
    ),
  path: z.string().optional().describe('Directory to search from. Default: the workspace root.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .optional()
    .describe('Maximum paths returned. Default 500.'),
});
/** Arguments of the `glob` tool. */
export interface GlobToolArguments {
  /** Glob matched against paths relative to the workspace root or to `path`. */
  pattern: string;
  /** Directory to search from (default: the workspace root). */
  path?: string;
  /** Maximum paths returned (default 500). */
  limit?: number;
}

/** Creates the `glob` tool: files whose workspace-relative path matches a glob (respects `.gitignore`). */
export function createGlobTool(options: WorkspaceToolOptions): ToolDefinition<GlobToolArguments> {
  const support = toolSupport(options);
  return defineTool({
    name: 'glob',
    description:
      'Find files by glob pattern (matched against paths relative to the workspace root). Respects .gitignore.',
    parameters: GlobArguments as ZodType<GlobToolArguments>,
    isConcurrencySafe: true,
    execute: async (args, context) => {
      try {
        const start = await support.resolve(args.path ?? '.', 'directory');
        if (!start.exists) return { content: `Directory not found: ${args.path}.`, isError: true };
        const root = await support.fs.realpath(support.cwd);
        const isMatch = picomatch(args.pattern, { dot: true });
        // A path matches from the workspace root or from the directory searched ("*.ts" in "src").
        const below = start.relative === '.' ? 0 : start.relative.length + 1;
        const matches = (rel: string): boolean =>
          isMatch(rel) || (below > 0 && isMatch(rel.slice(below)));
        const limit = args.limit ?? 500;
        const found: string[] = [];
        let more = false;
        for await (const entry of walkWorkspace({
          fs: support.fs,
          root,
          start: start.absolute,
          exclude: support.exclude,
          signal: context.signal,
        })) {
          if (entry.isDirectory || !matches(entry.relative)) continue;
          if (found.length >= limit) {
            more = true;
            break;
          }
          found.push(entry.relative);
        }
        if (found.length === 0)
          return {
            content: `No files match ${args.pattern}.`,
            meta: { count: 0, contentType: 'text/plain', sourcePath: start.relative },
          };
        found.sort();
        if (more) found.push(`[Stopped at ${limit} paths; use a narrower pattern.]`);
        return {
          content: found.join('\n'),
          meta: {
            count: found.length - (more ? 1 : 0),
            capped: more,
            contentType: 'text/plain',
            sourcePath: start.relative,
          },
        };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}
