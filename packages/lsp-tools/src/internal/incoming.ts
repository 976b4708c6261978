import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type {
  DocumentSymbol,
  Location,
  SymbolInformation,
} from 'vscode-languageserver-protocol/node';
import type { LspCallItem, LspLocation } from '../types.js';
import { fromLocations, symbolKindName, toLocation } from './convert.js';
import { splitLines } from './positions.js';
import type { ServerSession } from './session.js';

// SymbolKind numbers of things that can contain a call: method, constructor, function.
const CALLER_KINDS = new Set([6, 9, 12]);

/** True when the text after an identifier makes it the callee of a call or `new`. */
export function isCallSite(line: string, column: number, name: string): boolean {
  const after = line.slice(column - 1 + name.length);
  if (/^\s*(\?\.\s*)?(<[^()]*>\s*)?\(/.test(after) || /^\s*`/.test(after)) return true;
  return /\bnew\s+([\w$]+\s*\.\s*)*$/.test(line.slice(0, column - 1));
}

interface Caller {
  item: LspCallItem;
  start: number;
  end: number;
}

/** The innermost function, method or constructor around each 0-based line, from document symbols. */
function callersIn(path: string, symbols: (DocumentSymbol | SymbolInformation)[]): Caller[] {
  const out: Caller[] = [];
  const visit = (symbol: DocumentSymbol): void => {
    if (CALLER_KINDS.has(symbol.kind)) {
      out.push({
        item: {
          name: symbol.name,
          kind: symbolKindName(symbol.kind),
          location: toLocation(path, symbol.selectionRange),
        },
        start: symbol.range.start.line,
        end: symbol.range.end.line,
      });
    }
    for (const child of symbol.children ?? []) visit(child);
  };
  for (const symbol of symbols) if ('selectionRange' in symbol) visit(symbol);
  return out;
}

/**
 * Incoming calls the server's call hierarchy did not report (calls from other projects, which a
 * project-scoped call hierarchy cannot see): every reference to `item` that is a call site and
 * is not among `known` call sites, attributed to the innermost enclosing function, method or
 * constructor (or to the file, for a call at the top level).
 */
export async function incomingFromReferences(
  session: ServerSession,
  item: LspCallItem,
  known: ReadonlySet<string>,
  signal: AbortSignal | undefined,
): Promise<{ from: LspCallItem; callSites: LspLocation[] }[]> {
  const uri = await session.sync(item.location.path);
  const found = fromLocations(
    await session.client.request<unknown, Location[] | null>(
      { method: 'textDocument/references' },
      {
        textDocument: { uri },
        position: { line: item.location.line - 1, character: item.location.column - 1 },
        context: { includeDeclaration: false },
      },
      { signal },
    ),
  );
  const byFile = new Map<string, LspLocation[]>();
  for (const site of found) {
    const key = `${site.path}:${site.line}:${site.column}`;
    if (known.has(key)) continue;
    if (site.path === item.location.path && site.line === item.location.line) continue;
    byFile.set(site.path, [...(byFile.get(site.path) ?? []), site]);
  }
  const calls: { from: LspCallItem; callSites: LspLocation[] }[] = [];
  for (const [path, sites] of byFile) {
    let lines: string[];
    try {
      lines = splitLines(await readFile(path, 'utf8'));
    } catch {
      continue;
    }
    const callSites = sites.filter((site) =>
      isCallSite(lines[site.line - 1] ?? '', site.column, item.name),
    );
    if (callSites.length === 0) continue;
    const fileUri = await session.sync(path);
    const symbols =
      (await session.client.request<unknown, (DocumentSymbol | SymbolInformation)[] | null>(
        { method: 'textDocument/documentSymbol' },
        { textDocument: { uri: fileUri } },
        { signal },
      )) ?? [];
    const callers = callersIn(path, symbols);
    const grouped = new Map<string, { from: LspCallItem; callSites: LspLocation[] }>();
    for (const site of callSites) {
      const line = site.line - 1;
      const around = callers
        .filter((caller) => caller.start <= line && line <= caller.end)
        .sort((a, b) => a.end - a.start - (b.end - b.start))[0];
      const from: LspCallItem = around?.item ?? {
        name: basename(path),
        kind: 'file',
        location: { path, line: 1, column: 1, endLine: 1, endColumn: 1 },
      };
      const key = `${from.location.line}:${from.location.column}:${from.name}`;
      const group = grouped.get(key) ?? { from, callSites: [] };
      group.callSites.push(site);
      grouped.set(key, group);
    }
    calls.push(...grouped.values());
  }
  return calls;
}
