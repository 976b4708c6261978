// Public API of @spine/test-utils. Every export here is a semver promise.

export type { LoopbackHandler, LoopbackServer } from './loopback-server.js';
export { sleep, sseFrame, startSseServer, writeInPieces, writeSseHead } from './loopback-server.js';
export type { PromptCacheResult } from './prompt-cache.js';
export { commonPrefixLength, PromptCacheEmulator } from './prompt-cache.js';
export type { ScriptedModelServer, ScriptedModelServerOptions } from './scripted-model-server.js';
export { createScriptedModelServer } from './scripted-model-server.js';
export type {
  ReceivedRequest,
  ScriptedCompletion,
  ScriptedDrop,
  ScriptedError,
  ScriptedReply,
  ScriptedStall,
  ScriptedToolCall,
  ScriptedUsage,
} from './scripted-reply.js';
export { tmpDir, withTmpDir } from './tmp-dir.js';
