import { fileURLToPath } from 'node:url';
import type {
  CallHierarchyItem,
  Diagnostic,
  DocumentSymbol,
  Location,
  LocationLink,
  Range,
  SymbolInformation,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol/node';
import type { LspCallItem, LspDiagnostic, LspLocation, LspSeverity, LspSymbol } from '../types.js';

// LSP SymbolKind numbers 1–26, in order.
const SYMBOL_KINDS = [
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enum-member',
  'struct',
  'event',
  'operator',
  'type-parameter',
];
const SEVERITIES: LspSeverity[] = ['error', 'warning', 'information', 'hint'];

/** Lower-case name of an LSP SymbolKind number. */
export function symbolKindName(kind: number): string {
  return SYMBOL_KINDS[kind - 1] ?? 'symbol';
}

/** The file path of a `file:` URI, or undefined for other schemes. */
export function pathOfUri(uri: string): string | undefined {
  return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
}

/** Converts an LSP range in a file to a 1-based location. */
export function toLocation(path: string, range: Range): LspLocation {
  return {
    path,
    line: range.start.line + 1,
    column: range.start.character + 1,
    endLine: range.end.line + 1,
    endColumn: range.end.character + 1,
  };
}

/** Normalises a definition answer (Location, Location[], LocationLink[] or null). */
export function fromDefinition(
  result: Location | Location[] | LocationLink[] | null,
): LspLocation[] {
  if (!result) return [];
  const list: (Location | LocationLink)[] = Array.isArray(result) ? result : [result];
  const out: LspLocation[] = [];
  for (const item of list) {
    const link = 'targetUri' in item;
    const path = pathOfUri(link ? item.targetUri : item.uri);
    if (path) out.push(toLocation(path, link ? item.targetSelectionRange : item.range));
  }
  return out;
}

/** Converts LSP locations, dropping non-file URIs. */
export function fromLocations(result: Location[] | null): LspLocation[] {
  return fromDefinition(result);
}

/** Converts workspace/symbol answers; `WorkspaceSymbol`s without a range are skipped. */
export function fromWorkspaceSymbols(
  result: (SymbolInformation | WorkspaceSymbol)[] | null,
): LspSymbol[] {
  const out: LspSymbol[] = [];
  for (const symbol of result ?? []) {
    const path = pathOfUri(symbol.location.uri);
    if (!path || !('range' in symbol.location)) continue;
    const converted: LspSymbol = {
      name: symbol.name,
      kind: symbolKindName(symbol.kind),
      location: toLocation(path, symbol.location.range),
    };
    if (symbol.containerName) converted.containerName = symbol.containerName;
    out.push(converted);
  }
  return out;
}

/** Flattens a documentSymbol answer; locations point at the symbol's name. */
export function fromDocumentSymbols(
  path: string,
  result: (DocumentSymbol | SymbolInformation)[] | null,
): LspSymbol[] {
  const out: LspSymbol[] = [];
  const visit = (symbol: DocumentSymbol, container: string | undefined): void => {
    const converted: LspSymbol = {
      name: symbol.name,
      kind: symbolKindName(symbol.kind),
      location: toLocation(path, symbol.selectionRange),
    };
    if (container) converted.containerName = container;
    out.push(converted);
    for (const child of symbol.children ?? []) visit(child, symbol.name);
  };
  for (const symbol of result ?? []) {
    if ('selectionRange' in symbol) visit(symbol, undefined);
    else out.push(...fromWorkspaceSymbols([symbol]));
  }
  return out;
}

/** Converts one diagnostic of the file at `path`. */
export function fromDiagnostic(path: string, diagnostic: Diagnostic): LspDiagnostic {
  const converted: LspDiagnostic = {
    location: toLocation(path, diagnostic.range),
    severity: SEVERITIES[(diagnostic.severity ?? 1) - 1] ?? 'error',
    message: typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value,
  };
  if (diagnostic.code !== undefined) converted.code = diagnostic.code;
  if (diagnostic.source) converted.source = diagnostic.source;
  return converted;
}

/** Converts a call hierarchy item, or undefined for non-file URIs. */
export function fromCallItem(item: CallHierarchyItem): LspCallItem | undefined {
  const path = pathOfUri(item.uri);
  if (!path) return undefined;
  const converted: LspCallItem = {
    name: item.name,
    kind: symbolKindName(item.kind),
    location: toLocation(path, item.selectionRange),
  };
  if (item.detail) converted.detail = item.detail;
  return converted;
}
