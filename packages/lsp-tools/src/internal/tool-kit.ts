import type { JsonSchema, JsonValue, ToolExecutionContext, ToolOutput } from '@spine/protocol';
import { SpineError } from '@spine/protocol';
import { LspAbortedError } from '../errors.js';
import type { LspManager } from '../types.js';
import type { TargetArgs } from './locate.js';
import { ToolInputProblem } from './locate.js';

/** Default cap on listed results. */
export const DEFAULT_MAX_RESULTS = 50;

/** Settings every LSP tool shares: read-only, safe to run alongside others, 90 s to answer. */
export const READ_ONLY_TOOL = {
  isConcurrencySafe: true,
  permissions: {},
  timeoutMs: 90_000,
} as const;

/** The schema of a `max` argument: a whole number from 1 to 500. */
export function maxProperty(description: string): JsonSchema {
  return { type: 'integer', minimum: 1, maximum: 500, description };
}

/** JSON Schema properties shared by the position-based tools. */
export const TARGET_PROPERTIES: { [key: string]: JsonSchema } = {
  path: { type: 'string', description: 'File path relative to the workspace root.' },
  line: { type: 'integer', minimum: 1, description: '1-based line number.' },
  column: {
    type: 'integer',
    minimum: 1,
    description: '1-based column of the symbol on that line. Optional when `symbol` is given.',
  },
  symbol: {
    type: 'string',
    description:
      'Symbol name (`name` or `Class.method`). With path+line: found on that line. With path only: declared in, or else first used in, that file. Alone: looked up across the workspace.',
  },
};

/** Reads the target arguments, ignoring values of the wrong type (the schema already checked). */
export function targetArgs(args: Record<string, unknown>): TargetArgs {
  const target: TargetArgs = {};
  if (typeof args.path === 'string') target.path = args.path;
  if (typeof args.line === 'number') target.line = args.line;
  if (typeof args.column === 'number') target.column = args.column;
  if (typeof args.symbol === 'string') target.symbol = args.symbol;
  return target;
}

/** A positive integer argument, or the default. */
export function maxArg(args: Record<string, unknown>, fallback = DEFAULT_MAX_RESULTS): number {
  return typeof args.max === 'number' && args.max >= 1 ? Math.floor(args.max) : fallback;
}

/** The tool's arguments as recorded in the result metadata. */
function paramsOf(args: Record<string, unknown>): JsonValue {
  return JSON.parse(JSON.stringify(args)) as JsonValue;
}

/**
 * Runs a tool body: problems the model can act on (bad input, no server, a path outside the
 * workspace, a server failure) become error results; cancellation propagates as an error.
 */
export async function runLspTool(
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  body: () => Promise<{ content: string; provider?: string; truncated?: boolean }>,
): Promise<ToolOutput> {
  const started = performance.now();
  const meta = (): ToolOutput['meta'] => ({
    durationMs: Math.round(performance.now() - started),
    params: paramsOf(args),
  });
  try {
    const result = await body();
    return {
      content: result.content,
      meta: {
        ...meta(),
        ...(result.provider ? { provider: result.provider } : {}),
        ...(result.truncated ? { truncated: true } : {}),
      },
    };
  } catch (error) {
    if (error instanceof LspAbortedError || context.signal.aborted) throw error;
    if (error instanceof ToolInputProblem || SpineError.isInstance(error)) {
      return { content: error.message, isError: true, meta: meta() };
    }
    throw error;
  }
}

/**
 * The line under a workspace-wide answer that says what was searched, and whether the answer
 * may be incomplete (server still analysing, workspace too large to walk).
 */
export function coverageNote(manager: LspManager, serverId: string | undefined): string[] {
  const coverage = serverId === undefined ? undefined : manager.coverage(serverId);
  if (!coverage) return [];
  const count = coverage.projects.length;
  const listed = coverage.projects.slice(0, 4).join(', ');
  const more = count > 4 ? `, … ${count - 4} more` : '';
  const projects =
    count === 0
      ? 'every file under the workspace root'
      : `${count} project${count === 1 ? '' : 's'} (${listed}${more})`;
  const loose =
    coverage.looseFiles > 0 ? ` and ${coverage.looseFiles} files outside any project` : '';
  const lines = [`Searched: ${projects}${loose}.`];
  if (coverage.partial) {
    lines.push(
      `Possibly incomplete: the ${coverage.serverId} server was still analysing when it answered; ask again for a complete answer.`,
    );
  }
  if (coverage.truncated) {
    lines.push(
      'Possibly incomplete: the workspace is too large to walk completely, so some files were not given to the server; use grep for the rest.',
    );
  }
  return lines;
}
