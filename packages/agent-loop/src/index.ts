// Public API of @spine/agent-loop. Every export here is a semver promise.

export type {
  AbortedBody,
  AttemptBody,
  InboxItem,
  InboxQueue,
  InboxSplicedBody,
  PrefixChangeCause,
  PrefixComparison,
  PromptSystemBody,
  RecordedSeqs,
  RequestContextBody,
  RequestHeaderBody,
  RetryBody,
  RetryStartedBody,
  ToolsDefinedBody,
  TurnEndBody,
  TurnEndReason,
  TurnError,
} from '@spine/protocol';
export { Agent, createAgent } from './agent.js';
export type { BudgetCheck, BudgetPosition } from './budget.js';
export type { EnvironmentContributionOptions } from './environment.js';
export { createEnvironmentContribution } from './environment.js';
export {
  AgentBusyError,
  CompactionFailedError,
  CompactionUnavailableError,
  ContextOverflowError,
  LoopDetectedError,
  ModelRequestFailedError,
  PartialHistoryError,
  ReplayInputMissingError,
  TurnAbortedError,
} from './errors.js';
export { Inbox } from './inbox.js';
export type { InstructionFile, InstructionsContributionOptions } from './instructions.js';
export {
  createInstructionsContribution,
  findInstructionFiles,
  MAX_INSTRUCTION_BYTES,
  renderInstructions,
} from './instructions.js';
export type { LoopFinding, LoopThresholds } from './loop-detector.js';
export { DEFAULT_LOOP_THRESHOLDS, detectLoops, LoopDetector } from './loop-detector.js';
export { LOOP_NOTE_SOURCE } from './loop-guard.js';
export type { OverflowDiagnosis } from './overflow.js';
export { DEFAULT_RESERVED_OUTPUT, describeOverflow, diagnoseOverflow } from './overflow.js';
export type { LoopProjection } from './projections.js';
export { agentLoopProjections } from './projections.js';
export type { ReplayedRequest, ReplayMismatch, ReplayOptions, ReplayReport } from './replay.js';
export { replay, replayStream } from './replay.js';
export type { BuildRequestInput, BuiltRequest, RecordedRequest } from './request-builder.js';
export { hashTools, RequestBuilder } from './request-builder.js';
export type {
  FailVerdict,
  RequestErrorContext,
  RequestErrorDecision,
  RequestErrorHandler,
  RetryVerdict,
} from './request-error.js';
export { handleRequestError, REQUEST_ERROR_CHAIN } from './request-error.js';
export type { RerunOptions, RerunReport } from './rerun.js';
export { rerun } from './rerun.js';
export type { RecordedModel, RecordedModelOptions } from './rerun-model.js';
export { createRecordedModel, createRecordedSummarizer } from './rerun-model.js';
export type {
  RecordedManualCompaction,
  RecordedTurnInput,
  RerunComparison,
  ToolResultDifference,
} from './rerun-record.js';
export {
  compareToolResults,
  recordedApprovals,
  recordedManualCompactions,
  recordedTurnInputs,
} from './rerun-record.js';
export type { ToolOutputBody } from './result-fit.js';
export type { FallbackRetryPolicyOptions } from './retry.js';
export { createFallbackRetryPolicy } from './retry.js';
export { RUNTIME_CONTEXT_SOURCE, RuntimeContextProjection } from './runtime-context.js';
export type {
  AssembleOptions,
  PromptContribution,
  PromptSection,
  PromptSnapshot,
} from './system-prompt.js';
export { SystemPrompt } from './system-prompt.js';
export type {
  AgentEvents,
  AgentOptions,
  BeforeToolsInput,
  RunOptions,
  StepPosition,
  TurnReason,
  TurnResult,
} from './types.js';
