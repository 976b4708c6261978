// Public API of @spine/cli. Every export here is a semver promise.
// The package is mainly the `spine` binary; these exports let scripts and other harnesses reuse
// its configuration loader, exit codes, recorded-output model and workspace file search.

export { effectiveConfigJson, formatEffectiveConfig } from './config/format.js';
export type {
  ConfigLayerName,
  ConfigSource,
  LoadConfigOptions,
  LoadedConfig,
} from './config/load.js';
export { ENV_VARIABLES, loadConfig } from './config/load.js';
export type { ConfigLayer, HookCommand, HookEvent, Profile, SpineConfig } from './config/schema.js';
export {
  ConfigLayerSchema,
  configHome,
  defaultConfig,
  HOOK_EVENTS,
  HookCommandSchema,
  ProfileSchema,
} from './config/schema.js';
export { InvalidConfigError, SessionNotFoundError, UsageError } from './errors.js';
export type { ExitCode } from './exit-codes.js';
export { EXIT_CODES } from './exit-codes.js';
export type { FileSearchOptions, FileSearchResult } from './file-search.js';
export { fileReferencesOf, globToRegExp, searchWorkspaceFiles } from './file-search.js';
export type {
  HookCommandRunner,
  HookRunResult,
  ShellHooks,
  ShellHooksOptions,
} from './hooks-shell.js';
export { createShellHooks, runShellCommand } from './hooks-shell.js';
export type { InstructionFile } from './instructions.js';
export { findInstructionFiles, MAX_INSTRUCTION_BYTES, renderInstructions } from './instructions.js';
export type { RecordedModel, RecordedModelOptions } from './model-recorded.js';
export { createRecordedModel } from './model-recorded.js';
export type { RerunComparison, ToolResultDifference } from './rerun-compare.js';
export { compareToolResults, recordedTurnInputs } from './rerun-compare.js';
