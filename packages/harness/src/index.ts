// Public API of @spine/harness. Every export here is a semver promise.
// Spine's coding agent assembled from the other packages, without a terminal: what an IDE
// extension, a bot or a web UI needs to run the agent `spine` runs, from the same configuration.
// `@spine/cli` is one front end on top of it; `@spine/tui` holds the terminal presentation.

/**
 * Spine's coding agent assembled from its packages, without a terminal: layered configuration
 * ({@link loadConfig}), model selection ({@link resolveModel}), the wiring of tools, sandbox,
 * approvals, hooks, memory, MCP servers, subagents and workspace checkpoints ({@link wireAgent}),
 * and sessions opened, created or resumed after a crash ({@link startAgentSession}).
 *
 * @packageDocumentation
 */

export {
  type AgentSession,
  type StartOptions,
  startAgentSession,
} from './agent-session.js';
export {
  type ChildMonitor,
  type ChildState,
  childLabel,
  childMonitorFor,
  childSessionAt,
  type MonitorEvent,
  type TranscriptEntry,
} from './agents/monitor.js';
export { recordedChildrenOf } from './agents/rerun.js';
export { describeProfiles, withChildUsage } from './agents/tree.js';
export { effectiveConfigJson, formatEffectiveConfig } from './config/format.js';
export {
  type ConfigLayerName,
  type ConfigSource,
  ENV_VARIABLES,
  type EnvVariable,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from './config/load.js';
export {
  type ConfigLayer,
  ConfigLayerSchema,
  configHome,
  defaultConfig,
  HOOK_EVENTS,
  type HookCommand,
  type HookCommands,
  type HookEvent,
  type ModelEntry,
  type Profile,
  type SpineConfig,
} from './config/schema.js';
export {
  InvalidConfigError,
  MissingKeyError,
  SessionInUseError,
  SessionNotFoundError,
  UsageError,
} from './errors.js';
export { agentProjections, historyMode } from './history/projections.js';
export { streamSessionEvents } from './history/read.js';
export { openToResume, type ResumeOpenOptions } from './history/resume.js';
export { RESUME_STATE, type ResumeState } from './history/resume-state.js';
export {
  SESSION_TOTALS,
  type SessionTotals,
  sessionTotals,
  usageWithChildren,
} from './history/totals.js';
export {
  type AttachedImageFile,
  ImagesUnavailableError,
  imageMentions,
  imageServices,
  readImageFiles,
  storeImage,
} from './images.js';
export type { WiredJobs } from './jobs/wiring.js';
export { claudeUserFile, projectMcpFile } from './mcp/config-files.js';
export { createConfiguredManager, type WiredMcp, wireMcp } from './mcp/wiring.js';
export {
  formatMemoryReport,
  type MemoryFileReport,
  type MemoryReport,
  memoryReport,
} from './memory/memory-report.js';
export type { WiredMemory } from './memory/memory-wiring.js';
export { type ScratchMemory, scratchUserMemory } from './memory/scratch.js';
export { type ResolvedModel, resolveModel } from './model-config.js';
export {
  explainMissingPart,
  installCommand,
  isInstalled,
  OPTIONAL_PARTS,
  type OptionalPart,
  OptionalPartMissingError,
} from './optional/parts.js';
export {
  assertBudgetCheckable,
  type BudgetLimits,
  budgetExceeded,
  createBudgetCheck,
  recordedBudgetCheck,
} from './plan/budget.js';
export {
  type ApprovalName,
  applyPlanMode,
  enterPlanMode,
  leavePlanMode,
  PLAN_MODE_PROMPT,
  type PlanModeTarget,
  planModesBefore,
  syncPlanModePrompt,
} from './plan/plan-mode.js';
export {
  latestPlan,
  PLAN_STATE,
  type PlanState,
  planContext,
  renderPlan,
  UPDATE_PLAN_TOOL,
} from './plan/plan-state.js';
export { checkpointDirFor, checkpointStoreFor } from './rewind/checkpoint-store.js';
export { answerInterruptedCalls } from './rewind/recovery.js';
export { createRerunRestores } from './rewind/rerun-restores.js';
export type { WiredCheckpoints } from './rewind/wiring.js';
export {
  newSessionId,
  readSessionIndex,
  type SessionIndexEntry,
  writeSessionIndex,
} from './session-index.js';
export {
  AUTO_TITLE_MAX,
  currentSessionTitle,
  deriveSessionTitle,
  PERSON_TITLE_MAX,
  personTitle,
  recordSessionTitle,
  sanitizeTitle,
  UNTITLED,
} from './session-title.js';
export { readSessionEvents, storeFor } from './store.js';
export {
  connectionOf,
  type PostgresConnection,
  postgresStoreFor,
  storeUrlOf,
  withoutPassword,
} from './store-url.js';
export { preview, summarizeArguments } from './text.js';
export {
  BASE_PROMPT,
  fixedModel,
  type WiredAgent,
  type WireOptions,
  wireAgent,
} from './wire.js';
