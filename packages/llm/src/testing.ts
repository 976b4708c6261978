// Public API of @spine/llm/testing. Every export here is a semver promise.
// The ModelClient conformance kit, free of any test framework, and the scripted loopback servers
// that speak the DeepSeek/OpenAI-compatible and Anthropic wire formats, for adopters' own tests.

export { checkModelClient, modelClientConformanceCases } from './testing/check.js';
export type {
  CheckOptions,
  ConformanceCase,
  ConformanceCaseFailure,
  ConformanceReport,
} from './testing/kit.js';
export { ConformanceFailure, DEFAULT_CASE_TIMEOUT_MS } from './testing/kit.js';
export type { LoopbackHandler, LoopbackServer } from './testing/loopback-server.js';
export {
  sleep,
  sseFrame,
  startSseServer,
  writeInPieces,
  writeSseHead,
} from './testing/loopback-server.js';
export type { ModelClientFixture } from './testing/model-cases.js';
export type { PromptCacheResult } from './testing/prompt-cache.js';
export { commonPrefixLength, PromptCacheEmulator } from './testing/prompt-cache.js';
export type {
  ScriptedModelServer,
  ScriptedModelServerOptions,
} from './testing/scripted-model-server.js';
export { createScriptedModelServer } from './testing/scripted-model-server.js';
export type {
  ReceivedRequest,
  ScriptedCompletion,
  ScriptedDrop,
  ScriptedError,
  ScriptedReply,
  ScriptedStall,
  ScriptedToolCall,
  ScriptedUsage,
} from './testing/scripted-reply.js';
