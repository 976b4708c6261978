import { realpathSync } from 'node:fs';
import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  DocumentSymbol,
  Location,
  LocationLink,
  SymbolInformation,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol/node';
import { LspPathRefusedError } from './errors.js';
import {
  fromCallItem,
  fromDefinition,
  fromDiagnostic,
  fromDocumentSymbols,
  fromLocations,
  fromWorkspaceSymbols,
  pathOfUri,
  toLocation,
} from './internal/convert.js';
import { settledDiagnostics } from './internal/diagnostics-wait.js';
import { incomingFromReferences } from './internal/incoming.js';
import { resolveInWorkspace } from './internal/paths.js';
import { validatePosition } from './internal/positions.js';
import { ServerPool, type ServerSession } from './internal/server-pool.js';
import { forwardsTsserver, tsserverSymbols } from './internal/tsserver.js';
import { defaultServers } from './server-path.js';
import type {
  LspCallHierarchy,
  LspCallItem,
  LspCoverage,
  LspManager,
  LspManagerOptions,
  LspPosition,
  LspQueryOptions,
} from './types.js';

/** Default idle time before a server is stopped (ms). */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
/** Default time limit for a server to initialize (ms). */
export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
/** Default per-request time limit (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default longest wait for a server's project loading or initial analysis (ms). */
export const DEFAULT_ANALYSIS_TIMEOUT_MS = 60_000;

const positionParams = (uri: string, position: LspPosition) => ({
  textDocument: { uri },
  position: { line: position.line - 1, character: position.column - 1 },
});

/**
 * Creates the manager that starts language servers on first use for the workspace, reuses
 * them, restarts them after a crash, and stops them when idle or on {@link LspManager.shutdown}.
 *
 * @throws an {@link LspPathRefusedError} when `cwd` does not exist.
 * @example
 * ```ts
 * const lsp = createLspManager({ cwd: '/repo' });
 * const [definition] = await lsp.definition('src/main.ts', { line: 12, column: 8 });
 * await lsp.shutdown();
 * ```
 */
export function createLspManager(options: LspManagerOptions): LspManager {
  let cwd: string;
  try {
    cwd = realpathSync(options.cwd);
  } catch {
    throw new LspPathRefusedError({
      path: options.cwd,
      reason: `The workspace ${options.cwd} does not exist; pass an existing directory as cwd`,
    });
  }
  const changed = new Set<string>();
  const coverages = new Map<string, LspCoverage>();
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const pool = new ServerPool({
    cwd,
    servers: options.servers ?? defaultServers(),
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    requestTimeoutMs,
    startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    path: options.path ?? process.env.PATH,
    onChangedOnDisk: (path) => changed.add(path),
    changedFiles: () => [...changed],
    analysisTimeoutMs: options.analysisTimeoutMs ?? DEFAULT_ANALYSIS_TIMEOUT_MS,
    startRetryMs: options.startRetryMs ?? 10_000,
  });
  /** Prepares the server's view of the whole workspace and records what it covers. */
  const prepare = async (session: ServerSession, signal: AbortSignal | undefined) => {
    const coverage = await session.ensureProject(signal);
    coverages.set(coverage.serverId, coverage);
  };
  const settle = {
    quietMs: options.diagnosticsQuietMs ?? 300,
    settleMs: options.diagnosticsSettleMs ?? 1000,
    timeoutMs: requestTimeoutMs,
  };
  const resolvePath = (path: string): string => resolveInWorkspace(cwd, path);
  /**
   * Runs `work` on the server for `path` once that file is open and in sync (`uri` is its URI).
   * A `position` is checked against the file first. `workspace` prepares every project first,
   * so a workspace-wide answer does not depend on which files earlier queries happened to
   * open; `file` only makes sure a file outside every project is compiled with the workspace's
   * options (answers inside one file do not depend on other projects).
   */
  const withFile = async <T>(
    path: string,
    signal: AbortSignal | undefined,
    work: (session: ServerSession, uri: string, file: string) => Promise<T>,
    check: { position?: LspPosition; workspace?: boolean; file?: boolean } = {},
  ): Promise<T> => {
    const file = resolvePath(path);
    if (check.position) await validatePosition(cwd, file, check.position);
    return pool.runForPath(
      file,
      async (session) => {
        if (check.workspace) await prepare(session, signal);
        else if (check.file) await session.prepareFile(file);
        return work(session, await session.sync(file), file);
      },
      signal,
    );
  };

  return {
    cwd,
    get processCount() {
      return pool.processCount;
    },
    get starts() {
      return pool.starts;
    },
    resolvePath,
    serves: (path) => pool.serves(path),
    serverFor: (path) => pool.configFor(path)?.id,

    async definition(path, position, { signal }: LspQueryOptions = {}) {
      return withFile(
        path,
        signal,
        async (session, uri) => {
          const result = await session.client.request<
            unknown,
            Location | Location[] | LocationLink[] | null
          >({ method: 'textDocument/definition' }, positionParams(uri, position), { signal });
          return fromDefinition(result);
        },
        { position, workspace: true },
      );
    },

    async references(path, position, { signal }: LspQueryOptions = {}) {
      return withFile(
        path,
        signal,
        async (session, uri) => {
          const result = await session.client.request<unknown, Location[] | null>(
            { method: 'textDocument/references' },
            { ...positionParams(uri, position), context: { includeDeclaration: true } },
            { signal },
          );
          return fromLocations(result);
        },
        { position, workspace: true },
      );
    },

    async workspaceSymbols(
      query,
      { signal, language }: LspQueryOptions & { language?: string } = {},
    ) {
      const ids = await pool.serversWithFiles(language);
      const answers = await Promise.allSettled(
        ids.map((id) =>
          pool.runForServer(
            id,
            async (session) => {
              await prepare(session, signal);
              if (forwardsTsserver(session.client))
                return tsserverSymbols(session.client, query, signal);
              const result = await session.client.request<
                unknown,
                (SymbolInformation | WorkspaceSymbol)[] | null
              >({ method: 'workspace/symbol' }, { query }, { signal });
              return fromWorkspaceSymbols(result);
            },
            signal,
          ),
        ),
      );
      // One failing server does not hide the others' answers; all failing is an error.
      const failed = answers.find((answer) => answer.status === 'rejected');
      if (failed && (answers.every((answer) => answer.status === 'rejected') || signal?.aborted)) {
        throw failed.reason;
      }
      return answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    },

    async documentSymbols(path, { signal }: LspQueryOptions = {}) {
      return withFile(path, signal, async (session, uri, file) => {
        const result = await session.client.request<
          unknown,
          (DocumentSymbol | SymbolInformation)[] | null
        >({ method: 'textDocument/documentSymbol' }, { textDocument: { uri } }, { signal });
        return fromDocumentSymbols(file, result);
      });
    },

    async diagnostics(path, { signal }: LspQueryOptions = {}) {
      return withFile(
        path,
        signal,
        async (session, _uri, file) => {
          const items = await settledDiagnostics(session, file, { ...settle, signal });
          return items.map((item) => fromDiagnostic(file, item));
        },
        { file: true },
      );
    },

    async callHierarchy(path, position, { signal }: LspQueryOptions = {}) {
      return withFile(
        path,
        signal,
        async (session, uri) => {
          const request = <R>(method: string, params: unknown) =>
            session.client.request<unknown, R>({ method }, params, { signal });
          const items =
            (await request<CallHierarchyItem[] | null>(
              'textDocument/prepareCallHierarchy',
              positionParams(uri, position),
            )) ?? [];
          const out: LspCallHierarchy[] = [];
          for (const item of items) {
            const converted = fromCallItem(item);
            if (!converted) continue;
            const [incoming, outgoing] = await Promise.all([
              request<CallHierarchyIncomingCall[] | null>('callHierarchy/incomingCalls', { item }),
              request<CallHierarchyOutgoingCall[] | null>('callHierarchy/outgoingCalls', { item }),
            ]);
            const direct = (incoming ?? []).flatMap((call) => {
              const from = fromCallItem(call.from);
              const callerPath = pathOfUri(call.from.uri);
              if (!from || !callerPath) return [];
              return [
                {
                  from,
                  callSites: call.fromRanges.map((range) => toLocation(callerPath, range)),
                },
              ];
            });
            const known = new Set(
              direct.flatMap((call) =>
                call.callSites.map((site) => `${site.path}:${site.line}:${site.column}`),
              ),
            );
            const extra = await incomingFromReferences(session, converted, known, signal);
            out.push({
              item: converted,
              incoming: [...direct, ...extra],
              outgoing: (outgoing ?? []).flatMap((call) => {
                const to: LspCallItem | undefined = fromCallItem(call.to);
                if (!to) return [];
                return [
                  {
                    to,
                    callSites: call.fromRanges.map((range) =>
                      toLocation(converted.location.path, range),
                    ),
                  },
                ];
              }),
            });
          }
          return out;
        },
        { position, workspace: true },
      );
    },

    markChanged(path) {
      changed.add(resolvePath(path));
    },
    changedFiles: () => [...changed].sort(),
    status: () => pool.status(),
    checkServers: () => pool.checkServers(),
    coverage: (serverId) => coverages.get(serverId),
    shutdown: () => pool.shutdown(),
  };
}
