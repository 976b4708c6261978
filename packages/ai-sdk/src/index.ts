// Public API of @spine/ai-sdk. Every export here is a semver promise.

export { AiSdkOptionsError, RecordingFailedError } from './errors.js';
export type { AiSdkCallBody, AiSdkResponseBody, AiSdkToolsBody } from './event-types.js';
export { AI_SDK_EVENT_TYPES } from './event-types.js';
export type {
  RecordedCallOptions,
  RecordedModel,
  SpineRecorderMiddleware,
  SpineRecorderOptions,
} from './recorder.js';
export { DEFAULT_REDACTED_HEADERS, spineRecorder } from './recorder.js';
export type {
  SpineTool,
  SpineToolInputSchema,
  SpineToolModelOutput,
  SpineToolName,
  SpineToolOutput,
  SpineToolSet,
  SpineToolsOptions,
} from './tools.js';
export { SPINE_TOOL_NAMES, spineTools } from './tools.js';
export type {
  RecordedEvents,
  RecordingProblem,
  RecordingProblemKind,
  VerifyRecordingResult,
} from './verify.js';
export { verifyRecordedEvents, verifyRecording } from './verify.js';
