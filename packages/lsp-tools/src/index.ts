// Public API of @spine/lsp-tools. Every export here is a semver promise.

export type { DiagnosticsHookOptions } from './diagnostics-hook.js';
export { createDiagnosticsHook } from './diagnostics-hook.js';
export {
  LspAbortedError,
  LspFailedError,
  LspPathRefusedError,
  LspPositionError,
  LspUnavailableError,
} from './errors.js';
export {
  createLspManager,
  DEFAULT_ANALYSIS_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from './manager.js';
export type { PathServerOptions } from './server-path.js';
export {
  createClangdServer,
  createGoplsServer,
  createPyrightServer,
  createRustAnalyzerServer,
  defaultServers,
} from './server-path.js';
export type { TypescriptServerOptions } from './server-typescript.js';
export { createTypescriptServer, TYPESCRIPT_LANGUAGES } from './server-typescript.js';
export { createLspTools } from './tools.js';
export type {
  LanguageServerConfig,
  LspCallHierarchy,
  LspCallItem,
  LspCoverage,
  LspDiagnostic,
  LspLocation,
  LspManager,
  LspManagerOptions,
  LspPosition,
  LspQueryOptions,
  LspSeverity,
  LspSymbol,
  ServerStatus,
} from './types.js';
