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
export type { RuleCall, RuleOutcome } from './command-rules.js';
export { evaluateApprovalRules } from './command-rules.js';
export type { DefineToolOptions } from './define-tool.js';
export { defineTool, toParametersSchema } from './define-tool.js';
export {
  InvalidRuntimeOptionsError,
  InvalidToolDefinitionError,
  JobLimitError,
  JobNotFoundError,
  PathRefusedError,
  SandboxUnavailableError,
  StaleFileError,
} from './errors.js';
export type { FileSearchOptions, FileSearchResult } from './file-search.js';
export {
  checkWorkspaceReference,
  fileReferencesOf,
  searchWorkspaceFiles,
} from './file-search.js';
export type {
  DecidingHookEvent,
  LifecycleHookEvent,
  ShellHookCommand,
  ShellHookConfig,
  ShellHookEvent,
  ShellHooks,
  ShellHooksOptions,
} from './hooks-shell.js';
export { createShellHooks } from './hooks-shell.js';
export type { PermissionHookDecision, PromptHookDecision } from './hooks-shell-decide.js';
export type {
  HookCommandRunner,
  HookRunOptions,
  HookRunResult,
  SandboxedHookRunnerOptions,
} from './hooks-shell-run.js';
export { createSandboxedHookRunner, runShellCommand } from './hooks-shell-run.js';
export { DEFAULT_CREDENTIAL_PATHS } from './internal/credential-mounts.js';
export type {
  JobEvent,
  JobInfo,
  JobKiller,
  JobManagerOptions,
  JobOutputSlice,
  JobStartResult,
} from './jobs.js';
export { createJobManager, JobManager } from './jobs.js';
export type { DomainProxyPolicy } from './network-proxy.js';
export {
  handleProxyConnection,
  isAllowedHost,
  refusedAddressReason,
} from './network-proxy.js';
export type { ResolvedWorkspacePath, ResolveWorkspacePathOptions } from './path-guard.js';
export { createExcludeMatcher, isInside, resolveWorkspacePath } from './path-guard.js';
export type { ProcessIdentity } from './process-identity.js';
export { isProcessRunning, processStartTime } from './process-identity.js';
export { DEFAULT_PROTECTED_PATHS, isProtectedPath } from './protected-paths.js';
export type { ReadStateCheck, ReadStateTracker } from './read-state.js';
export { createReadStateTracker, READ_STATE_SERVICE } from './read-state.js';
export type { ToolRuntime, ToolRuntimeOptions } from './runtime.js';
export { createToolRuntime, SANDBOX_BACKEND_SERVICE } from './runtime.js';
export type { LazyToolRuntime, LazyToolRuntimeOptions } from './runtime-lazy.js';
export { createLazyToolRuntime } from './runtime-lazy.js';
export type {
  SandboxBackend,
  SandboxBackendInfo,
  SandboxCommand,
  SandboxSpawnOptions,
  SharedNetworkNamespace,
  WrappedCommand,
} from './sandbox.js';
export { createNoneSandbox } from './sandbox.js';
export type {
  BwrapArgumentsOptions,
  BwrapSandboxOptions,
  DetectSandboxOptions,
} from './sandbox-bwrap.js';
export { bwrapArguments, createBwrapSandbox, detectSandbox } from './sandbox-bwrap.js';
export type {
  ShellCommand,
  ShellCommandLine,
  ShellCommandParser,
  ShellDoubt,
} from './shell-command-parse.js';
export { loadShellParser, shellParserIfLoaded } from './shell-command-parse.js';
export type { ShellEnvInherit, ShellEnvOptions } from './shell-env.js';
export {
  CORE_ENV_VARIABLES,
  createShellEnv,
  isCredentialName,
  withoutShellStartup,
} from './shell-env.js';
export type { BashToolArguments, BashToolOptions } from './tool-bash.js';
export { createBashTool } from './tool-bash.js';
export type { StopToolCallProcessesResult } from './tool-call-processes.js';
export {
  findToolCallProcesses,
  stopToolCallProcesses,
  TOOL_CALL_ENV,
  toolCallTag,
} from './tool-call-processes.js';
export type { EditApplication, EditToolArguments, TextEdit } from './tool-edit.js';
export { applyEdits, createEditTool } from './tool-edit.js';
export type { GlobToolArguments } from './tool-glob.js';
export { createGlobTool } from './tool-glob.js';
export type { GrepToolArguments, GrepToolOptions } from './tool-grep.js';
export { createGrepTool } from './tool-grep.js';
export type { JobKillArguments, JobOutputArguments, JobToolsOptions } from './tool-jobs.js';
export { createJobTools } from './tool-jobs.js';
export type { ListToolArguments } from './tool-list.js';
export { createListTool } from './tool-list.js';
export type { ReadToolArguments, ReadToolOptions } from './tool-read.js';
export { createReadTool } from './tool-read.js';
export type { WriteToolArguments } from './tool-write.js';
export { createWriteTool } from './tool-write.js';
export type { WorkspaceToolOptions } from './types.js';
export type { WorkspaceFs } from './workspace-fs.js';
export { nodeWorkspaceFs } from './workspace-fs.js';
export type { WorkspaceToolsOptions } from './workspace-tools.js';
export { createWorkspaceTools } from './workspace-tools.js';
