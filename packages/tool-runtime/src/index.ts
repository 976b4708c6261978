// Public API of @spine/tool-runtime. Every export here is a semver promise.

export type {
  ApprovalCheck,
  ApprovalPolicy,
  ApprovalPolicyName,
  ApprovalRule,
  ApprovalVerdict,
  EscalationRequest,
} from './approval.js';
export { createApprovalPolicy, matchApprovalRule } from './approval.js';
export type { DefineToolOptions } from './define-tool.js';
export { defineTool, toParametersSchema } from './define-tool.js';
export {
  InvalidRuntimeOptionsError,
  InvalidToolDefinitionError,
  PathRefusedError,
  SandboxUnavailableError,
  StaleFileError,
} from './errors.js';
export type { WorkspaceToolOptions } from './internal/tool-support.js';
export type { ResolvedWorkspacePath, ResolveWorkspacePathOptions } from './path-guard.js';
export { createExcludeMatcher, isInside, resolveWorkspacePath } from './path-guard.js';
export type { ReadStateCheck, ReadStateTracker } from './read-state.js';
export { createReadStateTracker, READ_STATE_SERVICE } from './read-state.js';
export type { ToolRuntime, ToolRuntimeOptions } from './runtime.js';
export { createToolRuntime, SANDBOX_BACKEND_SERVICE } from './runtime.js';
export type { SandboxBackend, SandboxBackendInfo, SandboxCommand } from './sandbox.js';
export { createNoneSandbox } from './sandbox.js';
export type { BwrapSandboxOptions } from './sandbox-bwrap.js';
export { bwrapArguments, createBwrapSandbox, detectSandbox } from './sandbox-bwrap.js';
export type { BashToolOptions } from './tool-bash.js';
export { createBashTool } from './tool-bash.js';
export { applyEdits, createEditTool } from './tool-edit.js';
export { createGlobTool } from './tool-glob.js';
export { createGrepTool } from './tool-grep.js';
export { createListTool } from './tool-list.js';
export type { ReadToolOptions } from './tool-read.js';
export { createReadTool } from './tool-read.js';
export { createWriteTool } from './tool-write.js';
export type { WorkspaceFs } from './workspace-fs.js';
export { nodeWorkspaceFs } from './workspace-fs.js';
export type { WorkspaceToolsOptions } from './workspace-tools.js';
export { createWorkspaceTools } from './workspace-tools.js';
