// Public API of @spine/memory. Every export here is a semver promise.

export {
  createMemoryApproval,
  isUserMemoryWrite,
  type MemoryApproval,
  type MemoryApprovalCheck,
  type MemoryApprovalPolicy,
  type MemoryApprovalVerdict,
} from './memory-approval.js';
export {
  type AppendFactResult,
  appendFact,
  formatFact,
  isLinked,
  type LoadedMemory,
  MAX_FACT_CHARS,
  MAX_MEMORY_BYTES,
  MEMORY_FILE_HEADER,
  type MemoryFact,
  type MemoryFile,
  type MemoryScope,
  memoryFiles,
  normalizeFact,
  PROJECT_MEMORY_PATH,
  parseMemoryFacts,
  readMemory,
} from './memory-file.js';
export { loadMemories, MEMORY_SECTION_TITLE, renderMemorySection } from './memory-prompt.js';
export {
  createSessionMemory,
  type SessionMemory,
  type SessionMemoryOptions,
} from './session-memory.js';
export {
  createRememberTool,
  REMEMBER_TOOL,
  type RememberToolArguments,
  type RememberToolOptions,
} from './tool-remember.js';
