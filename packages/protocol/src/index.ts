// Public API of @spine/protocol. Every export here is a semver promise.

export { isAppendOnly, markAppendOnly } from './append-only.js';
export type {
  CompactionCandidateBody,
  CompactionDiscardedBody,
  CompactionEndBody,
  CompactionFailedBody,
  CompactionStartBody,
  CompactionSummaryBody,
  SurfaceRegionBody,
} from './compaction-bodies.js';
export {
  CompactionCandidateBodySchema,
  CompactionDiscardedBodySchema,
  CompactionEndBodySchema,
  CompactionFailedBodySchema,
  CompactionStartBodySchema,
  CompactionSummaryBodySchema,
  SurfaceRegionSchema,
} from './compaction-bodies.js';
export type {
  CompactionContext,
  CompactionEngine,
  CompactionOutcome,
  CompactionReason,
} from './compaction-engine.js';
export type { ModelErrorCode, SpineErrorCode, SpineErrorOptions } from './errors.js';
export {
  assertSpecificationVersion,
  isModelErrorCode,
  MODEL_ERROR_CODES,
  SpineError,
  UnsupportedSpecificationError,
} from './errors.js';
export {
  ATTEMPT_OUTCOMES,
  BUILTIN_EVENT_SURFACES,
  PREFIX_CHANGE_CAUSES,
  TOOL_RESULT_OUTCOMES,
  TURN_END_REASONS,
} from './event-values.js';
export type {
  AssistantMessageBody,
  EventBodies,
  EventSurfaceRole,
  SessionEvent,
  SessionHeaderBody,
  SessionRecoveredBody,
  SurfaceOp,
  ToolApprovalBody,
  ToolResultBody,
  ToolResultMeta,
  ToolStartedBody,
  UserMessageBody,
  UserMessageSource,
} from './events.js';
export {
  AssistantMessageBodySchema,
  BUILTIN_EVENT_TYPES,
  FORMAT_VERSION,
  SessionEventSchema,
  SessionHeaderBodySchema,
  SessionRecoveredBodySchema,
  SurfaceOpSchema,
  ToolApprovalBodySchema,
  ToolResultBodySchema,
  ToolResultMetaSchema,
  ToolStartedBodySchema,
  UserMessageBodySchema,
} from './events.js';
export type { HookEventName, HookInput, HookRunBody } from './hook-bodies.js';
export { HookEventSchema, HookInputSchema, HookRunBodySchema } from './hook-bodies.js';
export type {
  ImageBytes,
  ImageLimits,
  ImageRefusalReason,
  ImageService,
  SessionBlobs,
} from './image-check.js';
export {
  checkImage,
  DEFAULT_IMAGE_LIMITS,
  IMAGE_SERVICE,
  ImageRefusedError,
  imagePlaceholderText,
} from './image-check.js';
export type { ImageHeader, ImageHeaderProblem, ImageMediaType } from './image-header.js';
export { IMAGE_MEDIA_TYPES, readImageHeader } from './image-header.js';
export type { ImagePart } from './images.js';
export { ImagePartSchema } from './images.js';
export type { JobEndBody, JobRecoveredBody, JobStartBody } from './job-bodies.js';
export { JobEndBodySchema, JobRecoveredBodySchema, JobStartBodySchema } from './job-bodies.js';
export type { JsonObject, JsonSchema, JsonValue } from './json.js';
export { canonicalJson, findNonJson, JsonValueSchema } from './json.js';
export { bodyDefinitionName, sessionEventJsonSchema } from './json-schema.js';
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
  SessionForkedBody,
  StepEndBody,
  StepStartBody,
  ToolOutputBody,
  ToolProgressBody,
  ToolsDefinedBody,
  TurnEndBody,
  TurnEndReason,
  TurnError,
  TurnStartBody,
} from './loop-bodies.js';
export {
  AbortedBodySchema,
  AttemptBodySchema,
  InboxItemSchema,
  InboxQueueSchema,
  InboxSplicedBodySchema,
  PrefixChangeCauseSchema,
  PrefixComparisonSchema,
  PromptSystemBodySchema,
  RecordedSeqsSchema,
  RequestContextBodySchema,
  RequestHeaderBodySchema,
  RetryBodySchema,
  RetryStartedBodySchema,
  SessionForkedBodySchema,
  StepEndBodySchema,
  StepStartBodySchema,
  ToolOutputBodySchema,
  ToolProgressBodySchema,
  ToolsDefinedBodySchema,
  TurnEndBodySchema,
  TurnEndReasonSchema,
  TurnErrorSchema,
  TurnStartBodySchema,
} from './loop-bodies.js';
export type { LoopDetectedBody, LoopKind } from './loop-bodies-detect.js';
export { LoopDetectedBodySchema, LoopKindSchema } from './loop-bodies-detect.js';
export type {
  AssistantMessage,
  AssistantPart,
  Message,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultMessage,
  UserMessage,
} from './messages.js';
export {
  AssistantMessageSchema,
  AssistantPartSchema,
  MessageSchema,
  ReasoningPartSchema,
  TextPartSchema,
  ToolCallPartSchema,
  ToolResultMessageSchema,
  textOf,
  toolCallsOf,
  UserMessageSchema,
} from './messages.js';
export type {
  FinishReason,
  ModelClient,
  ModelErrorOptions,
  ModelRequest,
  ModelStreamEvent,
  ModelStreamOptions,
  RetryDecision,
  RetryPolicy,
} from './model-client.js';
export { isModelError, ModelError } from './model-client.js';
export type {
  BudgetExceededBody,
  PlanModeBody,
  PlanStep,
  UpdatePlanArguments,
} from './plan-bodies.js';
export {
  BudgetExceededBodySchema,
  PlanModeBodySchema,
  PlanStepSchema,
  PlanStepStatusSchema,
  UpdatePlanArgumentsSchema,
} from './plan-bodies.js';
export type { EventTypeDefinition, Projector } from './projector.js';
export { notStartedText, outcomeUnknownText } from './recovery-texts.js';
export type { AppendOptions, DerivedMessages, SessionListener, SessionLog } from './session.js';
export type { SessionConfigBody } from './session-config-bodies.js';
export { SessionConfigBodySchema } from './session-config-bodies.js';
export type {
  OpenedSession,
  SessionRange,
  SessionStore,
  SessionStoreOpenOptions,
  SessionSummary,
  StoreBlobs,
  StoredSnapshot,
} from './session-store.js';
export type { LeaseTakeoverBody } from './store-bodies.js';
export { LeaseTakeoverBodySchema } from './store-bodies.js';
export type { ChildEndBody, ChildEndReason, ChildStartBody } from './subagent-bodies.js';
export {
  ChildEndBodySchema,
  ChildEndReasonSchema,
  ChildStartBodySchema,
} from './subagent-bodies.js';
export type { SummarizationInput, SummarizationResult, Summarizer } from './summarizer.js';
export type { VisibleTextOptions } from './terminal-text.js';
export { visibleJson, visibleText } from './terminal-text.js';
export type { SessionTitleBody } from './title-bodies.js';
export { SessionTitleBodySchema } from './title-bodies.js';
export type { TokenMeasure, TokenMeter } from './token-meter.js';
export type {
  AnyToolDefinition,
  SandboxMode,
  ToolDefinition,
  ToolExecutionContext,
  ToolOutput,
  ToolPermissions,
} from './tool.js';
export type {
  ExecuteWrapper,
  PostExecuteHook,
  PreExecuteHook,
  PreExecuteVerdict,
  ToolHookCall,
  ToolHooks,
} from './tool-hooks.js';
export { TOOL_NAME_PATTERN } from './tool-name.js';
export type {
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalRequest,
  ToolRunEvent,
  ToolRunOptions,
  ToolScheduler,
} from './tool-scheduler.js';
export type { ToolSpec } from './tool-spec.js';
export { ToolSpecSchema } from './tool-spec.js';
export type { SamplingAnsweredBody, ToolsChangedBody } from './tools-bodies.js';
export { SamplingAnsweredBodySchema, ToolsChangedBodySchema } from './tools-bodies.js';
export type { Usage } from './usage.js';
export { addUsage, promptTokensOf, UsageSchema } from './usage.js';
export type {
  ProviderAvailability,
  WebFetchProvider,
  WebFetchResult,
  WebProvider,
  WebSearchProvider,
  WebSearchQuery,
  WebSearchResult,
} from './web-provider.js';
export type {
  WorkspaceCheckpointBody,
  WorkspacePathChange,
  WorkspaceRestoredBody,
} from './workspace-bodies.js';
export {
  WorkspaceCheckpointBodySchema,
  WorkspacePathChangeSchema,
  WorkspaceRestoredBodySchema,
} from './workspace-bodies.js';
