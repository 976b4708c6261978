// Public API of @spine/compaction. Every export here is a semver promise.

export type {
  CheckpointParts,
  DeterministicCheckpoint,
  DeterministicCheckpointOptions,
} from './checkpoint.js';
export {
  buildDeterministicCheckpoint,
  frameCheckpoint,
  priorFactsOf,
  renderFacts,
  surfaceEventsOf,
} from './checkpoint.js';
export type {
  CheckpointFact,
  CheckpointFactKind,
  ExtractFactsOptions,
} from './checkpoint-facts.js';
export { extractFacts } from './checkpoint-facts.js';
export type { ConstraintShape } from './constraints.js';
export { constraintShapeOf, constraintsOf } from './constraints.js';
export type { SpineCompactionEngine } from './engine.js';
export { createCompactionEngine } from './engine.js';
export type { PickErrorLinesOptions, PickedErrorLines } from './error-lines.js';
export { findErrorLines, isErrorLine, pickErrorLines } from './error-lines.js';
export type { CompactionFailureStage } from './errors.js';
export {
  CompactionFailedError,
  InvalidCompactionConfigError,
  SummaryEmptyError,
  TokenizerUnavailableError,
} from './errors.js';
export { openItemsOf } from './open-items.js';
export type { RecallHistoryArgs, RecallHistoryOptions } from './recall-history.js';
export { createRecallHistoryTool } from './recall-history.js';
export type {
  RegionCheck,
  RegionInvalid,
  RegionValid,
  SelectRangeOptions,
  SurfaceRegion,
} from './region.js';
export { selectCompactableRange, validateSurfaceRegion } from './region.js';
export type { SummarizationFallback } from './summarization-input.js';
export { buildSummarizationInput } from './summarization-input.js';
export type { ModelSummarizerOptions } from './summarizer-model.js';
export { createModelSummarizer, SUMMARY_INSTRUCTIONS, transcriptOf } from './summarizer-model.js';
export type { SpineTokenMeter, TokenMeterOptions } from './token-meter.js';
export { createTokenMeter } from './token-meter.js';
export type { Tokenizer, TokenizerName } from './tokenizer.js';
export { resolveTokenizer } from './tokenizer.js';
export type {
  BeforeCompactInfo,
  CandidateInfo,
  CompactionEngineOptions,
  CompactionState,
  CompactionThresholds,
  KeepRecent,
} from './types.js';
