// Public API of @spine/protocol. Every export here is a semver promise.
export { SpineError, UnsupportedSpecificationError, assertSpecificationVersion, } from './errors.js';
export { JsonValueSchema, canonicalJson, findNonJson } from './json.js';
export { AssistantMessageSchema, AssistantPartSchema, MessageSchema, ReasoningPartSchema, TextPartSchema, ToolCallPartSchema, ToolResultMessageSchema, UserMessageSchema, textOf, toolCallsOf, } from './messages.js';
export { UsageSchema, addUsage, promptTokensOf } from './usage.js';
export { AssistantMessageBodySchema, BUILTIN_EVENT_TYPES, FORMAT_VERSION, SessionEventSchema, SessionHeaderBodySchema, SessionRecoveredBodySchema, SurfaceOpSchema, ToolApprovalBodySchema, ToolResultBodySchema, ToolResultMetaSchema, ToolStartedBodySchema, UserMessageBodySchema, } from './events.js';
export { ToolSpecSchema } from './tool-spec.js';
export { ModelError } from './model-client.js';
//# sourceMappingURL=index.js.map