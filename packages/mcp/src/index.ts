// Public API of @spine/mcp. Every export here is a semver promise.
/**
 * Model Context Protocol servers as recorded, approved, sandboxed Spine tools.
 *
 * @packageDocumentation
 */

export type { McpCommand, McpCommandContext, McpCommandWrapper } from './command.js';
export type {
  McpRemoteServerConfig,
  McpServerConfig,
  McpServersConfig,
  McpStdioServerConfig,
  McpToolOverride,
} from './config.js';
export {
  describeServer,
  expandServerConfig,
  expandVariables,
  isStdioServer,
  McpRemoteServerConfigSchema,
  McpStdioServerConfigSchema,
  McpToolOverrideSchema,
  parseMcpConfig,
  parseMcpServerConfig,
} from './config.js';
export {
  McpConfigError,
  McpServeAddressError,
  McpServerUnavailableError,
  McpUrlRefusedError,
} from './errors.js';
export type {
  McpDiagnostic,
  McpManager,
  McpManagerOptions,
  McpServerHandle,
  McpServerStatus,
} from './manager.js';
export { createMcpManager } from './manager.js';
export { assignToolNames, MAX_TOOL_NAME_LENGTH, plainToolName, toolKey } from './names.js';
export type { FileOAuthProviderOptions, McpOAuthProvider } from './oauth-file.js';
export { createFileOAuthProvider } from './oauth-file.js';
export type { LoopbackOAuth, LoopbackOAuthOptions } from './oauth-loopback.js';
export { startLoopbackOAuth } from './oauth-loopback.js';
export type { McpToolAnnotations, McpToolPolicy } from './policy.js';
export { toolPolicy } from './policy.js';
export type { RenderToolResultOptions } from './render.js';
export { DEFAULT_MAX_RESULT_CHARS, renderToolResult } from './render.js';
export type { McpElicitationHandler, McpSamplingHandler } from './requests.js';
export type { ModelSamplingHandlerOptions } from './sampling-model.js';
export { createModelSamplingHandler } from './sampling-model.js';
export type { ServedToolAnnotations } from './server/annotations.js';
export type { McpHttpServer, McpHttpServerOptions } from './server/serve-http.js';
export { startMcpHttpServer } from './server/serve-http.js';
export type { McpStdioServer, McpStdioServerOptions } from './server/serve-stdio.js';
export { startMcpStdioServer } from './server/serve-stdio.js';
export type { McpToolServer, McpToolServerOptions } from './server/tool-server.js';
export { createMcpToolServer } from './server/tool-server.js';
export { recordedMcpTools } from './tools-recorded.js';

/** The package's version. */
export const VERSION = '0.1.0';
