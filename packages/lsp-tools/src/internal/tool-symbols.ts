import type { ToolDefinition } from '@spine/protocol';
import type { LspManager, LspSymbol } from '../types.js';
import { LineReader, omissionNotes, selectLocations, where } from './format.js';
import { nameLocation } from './locate.js';
import { coverageNote, maxArg, maxProperty, READ_ONLY_TOOL, runLspTool } from './tool-kit.js';

function rank(symbol: LspSymbol, query: string): number {
  if (symbol.name === query) return 0;
  if (symbol.name.toLowerCase() === query.toLowerCase()) return 1;
  if (symbol.name.toLowerCase().startsWith(query.toLowerCase())) return 2;
  return 3;
}

/** `lsp_symbols`: workspace symbol search by (partial) name. */
export function createSymbolsTool(manager: LspManager): ToolDefinition {
  return {
    spec: {
      name: 'lsp_symbols',
      description:
        'Search the workspace for declarations (classes, functions, methods, variables …) by name through the language server; fuzzy on the name. Use it to find where a known symbol is declared.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'The name or part of it.' },
          kind: {
            type: 'string',
            description: 'Only this kind, e.g. class, function, method, interface, variable.',
          },
          language: {
            type: 'string',
            description: 'Only this server id, e.g. typescript or python.',
          },
          max: maxProperty('Most results (default 50).'),
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    ...READ_ONLY_TOOL,
    execute: (args, context) =>
      runLspTool(args, context, async () => {
        const query = String(args.query ?? '');
        const options: { signal: AbortSignal; language?: string } = { signal: context.signal };
        if (typeof args.language === 'string') options.language = args.language;
        const reader = new LineReader();
        let symbols = await manager.workspaceSymbols(query, options);
        if (typeof args.kind === 'string')
          symbols = symbols.filter((symbol) => symbol.kind === String(args.kind).toLowerCase());
        const placed = symbols.map((symbol) => ({
          ...symbol,
          location: nameLocation(symbol, reader),
        }));
        const max = maxArg(args);
        // Rank exact matches first, then sort by place within a rank; cap afterwards.
        const selection = selectLocations(
          manager.cwd,
          placed,
          (symbol) => symbol.location,
          Number.MAX_SAFE_INTEGER,
        );
        const ranked = selection.shown.sort((a, b) => rank(a, query) - rank(b, query));
        const shown = ranked.slice(0, max);
        const counts = { ...selection, hidden: ranked.length - shown.length };
        const lines = [
          `${ranked.length} symbol${ranked.length === 1 ? '' : 's'} matching \`${query}\`:`,
        ];
        for (const symbol of shown) {
          const container = symbol.containerName ? ` (in ${symbol.containerName})` : '';
          lines.push(
            `${where(manager.cwd, symbol.location)}  ${symbol.kind} ${symbol.name}${container}  ${reader.line(symbol.location.path, symbol.location.line)}`,
          );
        }
        lines.push(...omissionNotes(counts, 'symbols'));
        const servers = options.language
          ? [options.language]
          : manager.status().map((server) => server.id);
        for (const id of servers) lines.push(...coverageNote(manager, id));
        return {
          content: lines.join('\n'),
          provider: options.language,
          truncated: counts.hidden > 0,
        };
      }),
  };
}
