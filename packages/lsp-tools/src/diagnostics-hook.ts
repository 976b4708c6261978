import { resolve } from 'node:path';
import type { PostExecuteHook, ToolOutput } from '@spine/protocol';
import { LspAbortedError } from './errors.js';
import { describeFileDiagnostics, withoutHints } from './internal/tool-diagnostics.js';
import type { LspManager } from './types.js';

/** Options of {@link createDiagnosticsHook}. */
export interface DiagnosticsHookOptions {
  /** Tool names whose `args.path` file is checked after they succeed (default `['write', 'edit']`). */
  tools?: string[];
  /** Most diagnostics appended (default 20). */
  max?: number;
  /** Also append hints such as unused variables (default false). */
  includeHints?: boolean;
  /** Append a "No problems" line when the file is clean (default true). */
  reportClean?: boolean;
}

/**
 * A `post-execute` hook for tool-runtime: right after a successful `write` or `edit`, it marks
 * the file as changed and appends that file's diagnostics to the tool's output, so the model
 * sees the errors its edit introduced. Files without a language server are left alone.
 *
 * Contract: never fails the edit. A server failure is noted in one line; cancellation leaves
 * the output unchanged.
 *
 * @example
 * ```ts
 * const lsp = createLspManager({ cwd });
 * const hooks = { postExecute: [createDiagnosticsHook(lsp)] };
 * ```
 */
export function createDiagnosticsHook(
  manager: LspManager,
  options: DiagnosticsHookOptions = {},
): PostExecuteHook {
  const tools = new Set(options.tools ?? ['write', 'edit']);
  const max = options.max ?? 20;
  return async (call, output, context): Promise<ToolOutput | undefined> => {
    if (!tools.has(call.toolName) || output.isError) return undefined;
    const args = call.args;
    const given =
      typeof args === 'object' && args !== null && !Array.isArray(args) ? args.path : undefined;
    if (typeof given !== 'string') return undefined;
    let file: string;
    try {
      file = manager.resolvePath(resolve(context.cwd, given));
    } catch {
      return undefined;
    }
    manager.markChanged(file);
    if (!manager.serves(file)) return undefined;
    let note: string;
    let count = 0;
    try {
      const diagnostics = withoutHints(
        await manager.diagnostics(file, { signal: context.signal }),
        options.includeHints === true,
      );
      if (diagnostics.length === 0 && options.reportClean === false) return undefined;
      count = diagnostics.length;
      note = describeFileDiagnostics(manager, file, diagnostics, max).text;
    } catch (error) {
      if (error instanceof LspAbortedError || context.signal.aborted) return undefined;
      note = `(diagnostics unavailable: ${(error as Error).message})`;
    }
    return {
      ...output,
      content: `${output.content}\n\nDiagnostics after this change:\n${note}`,
      meta: { ...output.meta, diagnostics: count },
    };
  };
}
