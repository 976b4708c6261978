import type { ToolDefinition } from '@spine/protocol';
import picomatch from 'picomatch';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { failureOutput, looksBinary, toolSupport } from './internal/tool-support.js';
import { walkWorkspace } from './internal/walk.js';
import type { WorkspaceToolOptions } from './types.js';

const GrepArguments = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression searched line by line.'),
  path: z
    .string()
    .optional()
    .describe('File or directory to search, relative to the workspace root. Default: the root.'),
  glob: z
    .string()
    .optional()
    .describe('Only files whose workspace-relative path matches this glob, e.g. "**/*.ts".'),
  ignoreCase: z.boolean().optional(),
  context: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Lines of context before and after each match.'),
  maxMatches: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Stop after this many matches. Default 100.'),
});
/** Arguments of the `grep` tool. */
export interface GrepToolArguments {
  /** JavaScript regular expression, matched line by line. */
  pattern: string;
  /** File or directory to search (default: the workspace root). */
  path?: string;
  /** Only files whose workspace-relative path matches this glob. */
  glob?: string;
  /** Match case-insensitively. */
  ignoreCase?: boolean;
  /** Lines of context around each match (0–10). */
  context?: number;
  /** Stop after this many matches (default 100). */
  maxMatches?: number;
}

const MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Creates the `grep` tool: regex search over workspace files (respecting `.gitignore` and excludes,
 * skipping binary and very large files), with context lines and a result cap.
 */
export function createGrepTool(options: WorkspaceToolOptions): ToolDefinition<GrepToolArguments> {
  const support = toolSupport(options);
  return defineTool({
    name: 'grep',
    description:
      'Search file contents with a regular expression. Returns path:line:text for matches (path-line-text for context lines). Respects .gitignore.',
    parameters: GrepArguments as ZodType<GrepToolArguments>,
    isConcurrencySafe: true,
    execute: async (args, context) => {
      let regex: RegExp;
      try {
        regex = new RegExp(args.pattern, args.ignoreCase ? 'i' : '');
      } catch (error) {
        return failureOutput(new Error(`Invalid regular expression: ${(error as Error).message}`));
      }
      try {
        const target = await support.resolve(args.path ?? '.');
        if (!target.exists) return { content: `Path not found: ${args.path}.`, isError: true };
        const root = await support.fs.realpath(support.cwd);
        const matchGlob = args.glob ? picomatch(args.glob, { dot: true }) : undefined;
        const limit = args.maxMatches ?? 100;
        const around = args.context ?? 0;
        const out: string[] = [];
        let matches = 0;
        let files = 0;
        const candidates = target.stats?.isFile()
          ? [{ absolute: target.absolute, relative: target.relative }]
          : walkWorkspace({
              fs: support.fs,
              root,
              start: target.absolute,
              exclude: support.exclude,
              signal: context.signal,
            });
        for await (const entry of candidates) {
          if ('isDirectory' in entry && entry.isDirectory) continue;
          if (matchGlob && !matchGlob(entry.relative)) continue;
          if (matches >= limit || context.signal.aborted) break;
          const stats = await support.fs.stat(entry.absolute);
          if (stats.size > MAX_FILE_BYTES) continue;
          const buffer = await support.fs.readFile(entry.absolute);
          if (looksBinary(buffer)) continue;
          const lines = buffer.toString('utf8').split('\n');
          let lastShown = -1;
          let fileHadMatch = false;
          for (let i = 0; i < lines.length && matches < limit; i++) {
            if (!regex.test(lines[i]!)) continue;
            matches++;
            fileHadMatch = true;
            const from = Math.max(0, i - around, lastShown + 1);
            if (around > 0 && lastShown >= 0 && from > lastShown + 1) out.push('--');
            for (let j = from; j <= Math.min(lines.length - 1, i + around); j++) {
              const separator = j === i ? ':' : '-';
              out.push(
                `${entry.relative}${separator}${j + 1}${separator}${lines[j]!.slice(0, 500)}`,
              );
              lastShown = j;
            }
          }
          if (fileHadMatch) files++;
        }
        if (matches === 0)
          return {
            content: `No matches for /${args.pattern}/.`,
            meta: { matches: 0, contentType: 'text/plain', sourcePath: target.relative },
          };
        if (matches >= limit)
          out.push(
            `[Stopped at ${limit} matches; narrow the pattern, path or glob, or raise maxMatches.]`,
          );
        return {
          content: out.join('\n'),
          meta: {
            matches,
            files,
            capped: matches >= limit,
            contentType: 'text/plain',
            sourcePath: target.relative,
          },
        };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}
