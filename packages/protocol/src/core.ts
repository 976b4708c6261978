// Public API of @spine/protocol/core: every runtime value of @spine/protocol except the zod
// schemas, so that importing it never loads zod. The main entry re-exports all of it (the same
// instances); packages that must start fast (session-log) import their values from here and load
// the schemas only when they validate. Every export here is a semver promise.

export { isAppendOnly, markAppendOnly } from './append-only.js';
export type { ModelErrorCode, SpineErrorCode, SpineErrorOptions } from './errors.js';
export {
  assertSpecificationVersion,
  isModelErrorCode,
  MODEL_ERROR_CODES,
  SpineError,
  UnsupportedSpecificationError,
} from './errors.js';
export type { EventSurfaceRole } from './event-values.js';
export {
  ATTEMPT_OUTCOMES,
  BUILTIN_EVENT_SURFACES,
  FORMAT_VERSION,
  PREFIX_CHANGE_CAUSES,
  TOOL_RESULT_OUTCOMES,
  TURN_END_REASONS,
} from './event-values.js';
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
export type { JsonObject, JsonSchema, JsonValue } from './json-values.js';
export { canonicalJson, findNonJson } from './json-values.js';
export { textOf, toolCallsOf } from './message-parts.js';
export { isModelError, ModelError } from './model-client.js';
export { notStartedText, outcomeUnknownText } from './recovery-texts.js';
export type { VisibleTextOptions } from './terminal-text.js';
export { visibleJson, visibleText } from './terminal-text.js';
export { TOOL_NAME_PATTERN } from './tool-name.js';
export { addUsage, promptTokensOf } from './usage-math.js';
