import type { LspSymbol } from '../types.js';
import type { LspClient } from './client.js';

/** The command typescript-language-server offers for sending a request straight to tsserver. */
export const TSSERVER_REQUEST = 'typescript.tsserverRequest';

/** True when the server forwards raw tsserver requests (typescript-language-server does). */
export function forwardsTsserver(client: LspClient): boolean {
  return (client.capabilities.executeCommandProvider?.commands ?? []).includes(TSSERVER_REQUEST);
}

/** Sends one tsserver request through typescript-language-server and returns its body. */
export async function tsserverRequest<T>(
  client: LspClient,
  command: string,
  args: unknown,
  signal: AbortSignal | undefined,
  timeoutMs?: number,
): Promise<T | undefined> {
  const response = await client.request<unknown, { body?: T } | null>(
    { method: 'workspace/executeCommand' },
    { command: TSSERVER_REQUEST, arguments: [command, args] },
    timeoutMs === undefined ? { signal } : { signal, timeoutMs },
  );
  return response?.body;
}

interface NavtoItem {
  name: string;
  kind: string;
  file: string;
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  containerName?: string;
}

// tsserver's ScriptElementKind names mapped to this package's lower-case LSP kind names.
const KINDS: Record<string, string> = {
  module: 'module',
  class: 'class',
  'local class': 'class',
  interface: 'interface',
  type: 'class',
  enum: 'enum',
  'enum member': 'enum-member',
  var: 'variable',
  'local var': 'variable',
  let: 'variable',
  const: 'variable',
  alias: 'variable',
  function: 'function',
  'local function': 'function',
  method: 'method',
  getter: 'property',
  setter: 'property',
  property: 'property',
  constructor: 'constructor',
  'type parameter': 'type-parameter',
};

/**
 * Workspace symbol search over every loaded project. typescript-language-server's own
 * `workspace/symbol` passes tsserver a file, which limits the search to that file's project;
 * `navto` without a file searches them all.
 */
export async function tsserverSymbols(
  client: LspClient,
  query: string,
  signal: AbortSignal | undefined,
): Promise<LspSymbol[]> {
  const items =
    (await tsserverRequest<NavtoItem[]>(
      client,
      'navto',
      { searchValue: query, maxResultCount: 1000 },
      signal,
    )) ?? [];
  return items.map((item) => {
    const symbol: LspSymbol = {
      name: item.name,
      kind: KINDS[item.kind] ?? 'variable',
      location: {
        path: item.file,
        line: item.start.line,
        column: item.start.offset,
        endLine: item.end.line,
        endColumn: item.end.offset,
      },
    };
    if (item.containerName) symbol.containerName = item.containerName;
    return symbol;
  });
}
