// Public API of @spine/compaction. Every export here is a semver promise. The building blocks
// the engine is made of (range selection, the checkpoint readers, the summarizer's transcript,
// the tokenizers) are in `@spine/compaction/internal`, for tests and audits.

export type {
  CheckpointParts,
  DeterministicCheckpoint,
  DeterministicCheckpointOptions,
} from './checkpoint.js';
export { buildDeterministicCheckpoint } from './checkpoint.js';
export type {
  CheckpointFact,
  CheckpointFactKind,
  ExtractFactsOptions,
} from './checkpoint-facts.js';
export { extractFacts } from './checkpoint-facts.js';
export type { SpineCompactionEngine } from './engine.js';
export { createCompactionEngine } from './engine.js';
export type { CompactionFailureStage } from './errors.js';
export {
  CompactionFailedError,
  InvalidCompactionConfigError,
  SummaryEmptyError,
  TokenizerUnavailableError,
} from './errors.js';
export type { ImageTokenRule } from './image-tokens.js';
export { imageTokens } from './image-tokens.js';
export type { CompactionProjection } from './projections.js';
export { compactionProjections } from './projections.js';
export type { RecallHistoryArgs, RecallHistoryOptions } from './recall-history.js';
export { createRecallHistoryTool } from './recall-history.js';
export type { SurfaceRegion } from './region.js';
export type { ModelSummarizerOptions } from './summarizer-model.js';
export { createModelSummarizer } from './summarizer-model.js';
export type { SpineTokenMeter, TokenMeterOptions } from './token-meter.js';
export { createTokenMeter } from './token-meter.js';
export type { Tokenizer, TokenizerName } from './tokenizer.js';
export type {
  BeforeCompactInfo,
  CandidateInfo,
  CompactionEngineOptions,
  CompactionState,
  CompactionThresholds,
  KeepRecent,
} from './types.js';
