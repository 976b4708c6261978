import type { JsonValue } from '@spine/protocol';

/** How to start one language server and which files it serves. */
export interface LanguageServerConfig {
  /** Stable id, for example `typescript` or `python`. */
  id: string;
  /** File extensions (with the dot, lower case) mapped to LSP language ids: `{ '.ts': 'typescript' }`. */
  languages: Record<string, string>;
  /** The executable: an absolute path, or a name looked up on `PATH`. */
  command: string;
  /** Arguments, usually including `--stdio`. */
  args?: string[];
  /** Extra environment variables for the server process. */
  env?: Record<string, string>;
  /** Sent as `initializationOptions` in `initialize`. */
  initializationOptions?: JsonValue;
  /** Told to the model and to `spine doctor` when the command is missing, e.g. `npm i -g pyright`. */
  installHint?: string;
  /**
   * Arguments that make the command print its version and exit 0 (`['--version']`), run by
   * `checkServers()`. Without them, only a successful start (the initialize handshake) shows
   * that the server works.
   */
  versionArgs?: string[];
  /**
   * Names of the files that mark a project (`tsconfig.json`, `pyproject.toml` …). One file of
   * each project is opened before a workspace-wide query. Default: derived from the languages.
   */
  projectFiles?: string[];
}

/** A 1-based position: line 1 is the first line, column 1 the first character (UTF-16 units). */
export interface LspPosition {
  line: number;
  column: number;
}

/** A range in a file, 1-based, end exclusive. `path` is absolute. */
export interface LspLocation {
  path: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A named symbol and where it is declared. */
export interface LspSymbol {
  name: string;
  /** Lower-case LSP symbol kind name, for example `class` or `method`. */
  kind: string;
  /** The enclosing symbol's name, when the server reports one. */
  containerName?: string;
  location: LspLocation;
}

/** Severity names of LSP diagnostics. */
export type LspSeverity = 'error' | 'warning' | 'information' | 'hint';

/** One diagnostic (compiler error, warning …) in a file. */
export interface LspDiagnostic {
  location: LspLocation;
  severity: LspSeverity;
  message: string;
  code?: string | number;
  source?: string;
}

/** One element of a call hierarchy: a function, method or constructor. */
export interface LspCallItem {
  name: string;
  kind: string;
  detail?: string;
  /** Where the item's name is declared. */
  location: LspLocation;
}

/** The calls into and out of one item. Call sites of incoming calls lie in the caller's file. */
export interface LspCallHierarchy {
  item: LspCallItem;
  incoming: { from: LspCallItem; callSites: LspLocation[] }[];
  outgoing: { to: LspCallItem; callSites: LspLocation[] }[];
}

/** State of one configured server, as `spine doctor` shows it. */
export interface ServerStatus {
  id: string;
  /** The command as configured. */
  command: string;
  /** Its arguments (for typescript-language-server: the bundled CLI path and `--stdio`). */
  args: string[];
  /** File extensions the server handles. */
  extensions: string[];
  /**
   * True when the command exists and nothing showed that it does not work: its version command
   * (after `checkServers()`) or its last start did not fail. A failed start counts until its
   * back-off time has passed.
   */
  available: boolean;
  /** The version line the server printed, after `checkServers()`. */
  version?: string;
  /** Why it is unavailable, with what to do. */
  reason?: string;
  state: 'stopped' | 'starting' | 'running' | 'crashed' | 'failed';
  /** Process id while running. */
  pid?: number;
  /** How many processes were started for it so far. */
  starts: number;
  /** The last failure (start failure or crash), if any. */
  lastError?: string;
}

/** Options of `createLspManager`. */
export interface LspManagerOptions {
  /** The workspace root; every path must lie inside it. */
  cwd: string;
  /** Servers to use; default: `defaultServers`. */
  servers?: LanguageServerConfig[];
  /** A server with no request for this long is shut down (ms, default 300000). */
  idleTimeoutMs?: number;
  /** Per-request time limit (ms, default 30000). */
  requestTimeoutMs?: number;
  /** Time limit for a server to answer `initialize` (ms, default 60000). */
  startupTimeoutMs?: number;
  /** How long diagnostics must stay unchanged before they count as settled (ms, default 300). */
  diagnosticsQuietMs?: number;
  /** A file that had diagnostics keeps them when nothing new arrives within this (ms, default 1000). */
  diagnosticsSettleMs?: number;
  /** `PATH` used to find server commands; default `process.env.PATH`. */
  path?: string;
  /**
   * Longest wait for a server's project loading or initial analysis before a workspace-wide
   * answer is given anyway and marked partial (ms, default 60000).
   */
  analysisTimeoutMs?: number;
  /** Wait before a server that failed to start is tried again; doubles per failure (ms, default 10000). */
  startRetryMs?: number;
}

/** What a workspace-wide answer (references, calls, symbols) covered. */
export interface LspCoverage {
  /** The server that answered. */
  serverId: string;
  /** Project configuration files found, relative to the workspace. */
  projects: string[];
  /** Files outside every project that the server was given as well. */
  looseFiles: number;
  /** True when the server was still loading or analysing when it answered. */
  partial: boolean;
  /** True when the workspace was too large to walk completely, or files were left out. */
  truncated: boolean;
}

/** Options every query accepts. */
export interface LspQueryOptions {
  signal?: AbortSignal;
}

/**
 * Starts language servers on demand and answers navigation queries against the files on disk.
 *
 * Contract: throws `LspUnavailableError` when no server serves a file or its server failed to
 * start recently (the cause and install hint are in the message), `LspPositionError` for a
 * line or column outside the file,
 * `LspPathRefusedError` for paths outside the workspace, `LspFailedError` when a
 * server fails (a crash during a query restarts it once and retries), and
 * `LspAbortedError` when the signal fires.
 */
export interface LspManager {
  /** The workspace root (real path). */
  readonly cwd: string;
  /** Server processes alive right now. */
  readonly processCount: number;
  /** Server processes started since creation (all servers). */
  readonly starts: number;
  /** Where the symbol at `position` is defined. */
  definition(
    path: string,
    position: LspPosition,
    options?: LspQueryOptions,
  ): Promise<LspLocation[]>;
  /**
   * Every reference to the symbol at `position`, including its declaration, across every
   * project of the workspace and the files outside them (see {@link LspManager.coverage}).
   */
  references(
    path: string,
    position: LspPosition,
    options?: LspQueryOptions,
  ): Promise<LspLocation[]>;
  /** Workspace symbol search; `language` narrows to one server id. */
  workspaceSymbols(
    query: string,
    options?: LspQueryOptions & { language?: string },
  ): Promise<LspSymbol[]>;
  /** Every symbol declared in a file, flattened, with container names. */
  documentSymbols(path: string, options?: LspQueryOptions): Promise<LspSymbol[]>;
  /** Diagnostics of a file as on disk now, once the server has settled. */
  diagnostics(path: string, options?: LspQueryOptions): Promise<LspDiagnostic[]>;
  /**
   * Incoming and outgoing calls of the function at `position`. Incoming calls the server's own
   * (project-scoped) hierarchy misses are added from the references that are call sites.
   */
  callHierarchy(
    path: string,
    position: LspPosition,
    options?: LspQueryOptions,
  ): Promise<LspCallHierarchy[]>;
  /** Resolves a workspace path, refusing escapes; returns the absolute real path. */
  resolvePath(path: string): string;
  /** The id of the server configured for this path's extension, installed or not. */
  serverFor(path: string): string | undefined;
  /** True when a configured and installed server handles this path's extension. */
  serves(path: string): boolean;
  /** Records that a file changed in this session (the diagnostics hook calls it). */
  markChanged(path: string): void;
  /** Files changed in this session: marked ones plus open files that changed on disk. */
  changedFiles(): string[];
  /** One entry per configured server. */
  status(): ServerStatus[];
  /** Runs each installed server's version command once and returns the statuses. */
  checkServers(): Promise<ServerStatus[]>;
  /** What the last workspace-wide answer of this server (id) covered, if it answered one. */
  coverage(serverId: string): LspCoverage | undefined;
  /** Shuts every server down (shutdown request, exit, then kill if needed). */
  shutdown(): Promise<void>;
}
