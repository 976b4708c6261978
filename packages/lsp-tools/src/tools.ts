import type { ToolDefinition } from '@spine/protocol';
import { createCallHierarchyTool } from './internal/tool-call-hierarchy.js';
import { createDiagnosticsTool } from './internal/tool-diagnostics.js';
import { createDefinitionTool, createReferencesTool } from './internal/tool-navigation.js';
import { createSymbolsTool } from './internal/tool-symbols.js';
import type { LspManager } from './types.js';

/**
 * The five LSP tools over one manager: `lsp_definition`, `lsp_references`, `lsp_symbols`,
 * `lsp_diagnostics` and `lsp_call_hierarchy`. All are read-only and concurrency-safe.
 *
 * Contract: bad arguments, a path outside the workspace, a language without a server and
 * server failures come back as error results the model can read (`isError: true`); only
 * cancellation (the context's AbortSignal) throws.
 *
 * @example
 * ```ts
 * const lsp = createLspManager({ cwd });
 * registry.add(...createLspTools(lsp));
 * const definition = createLspTools(lsp).find((tool) => tool.spec.name === 'lsp_definition')!;
 * const output = await definition.execute({ symbol: 'totalArea' }, context);
 * ```
 */
export function createLspTools(manager: LspManager): ToolDefinition[] {
  return [
    createDefinitionTool(manager),
    createReferencesTool(manager),
    createSymbolsTool(manager),
    createDiagnosticsTool(manager),
    createCallHierarchyTool(manager),
  ];
}
