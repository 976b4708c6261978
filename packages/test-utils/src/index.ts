// Public API of @spine/test-utils. Every export here is a semver promise.
// The loopback model servers moved to the published @spine/llm/testing entry; they are
// re-exported here so the repository's own tests keep one import.

export type {
  LoopbackHandler,
  LoopbackServer,
  PromptCacheResult,
  ReceivedRequest,
  ScriptedCompletion,
  ScriptedDrop,
  ScriptedError,
  ScriptedModelServer,
  ScriptedModelServerOptions,
  ScriptedReply,
  ScriptedStall,
  ScriptedToolCall,
  ScriptedUsage,
} from '@spine/llm/testing';
export {
  commonPrefixLength,
  createScriptedModelServer,
  PromptCacheEmulator,
  sleep,
  sseFrame,
  startSseServer,
  writeInPieces,
  writeSseHead,
} from '@spine/llm/testing';
export { makeGif, makeJpeg, makePng, makePngBomb, makeWebp } from './images.js';
export { tmpDir, withTmpDir } from './tmp-dir.js';
