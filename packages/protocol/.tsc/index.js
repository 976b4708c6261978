// Public API of @spine/protocol. Every export here is a semver promise.
export { assertSpecificationVersion, SpineError, UnsupportedSpecificationError, } from './errors.js';
export { AssistantMessageBodySchema, BUILTIN_EVENT_TYPES, FORMAT_VERSION, SessionEventSchema, SessionHeaderBodySchema, SessionRecoveredBodySchema, SurfaceOpSchema, ToolApprovalBodySchema, ToolResultBodySchema, ToolResultMetaSchema, ToolStartedBodySchema, UserMessageBodySchema, } from './events.js';
export { canonicalJson, findNonJson, JsonValueSchema } from './json.js';
export { AssistantMessageSchema, AssistantPartSchema, MessageSchema, ReasoningPartSchema, TextPartSchema, ToolCallPartSchema, ToolResultMessageSchema, textOf, toolCallsOf, UserMessageSchema, } from './messages.js';
export { ModelError } from './model-client.js';
export { ToolSpecSchema } from './tool-spec.js';
export { addUsage, promptTokensOf, UsageSchema } from './usage.js';
//# sourceMappingURL=index.js.map