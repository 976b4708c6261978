// @spine/compaction/internal: the building blocks the compaction engine is made of, for this
// package's tests, benchmarks and audits. Not a semver promise: names and shapes here may change in
// any release. Adopters use `createCompactionEngine` and the other factories of the main entry.

export { frameCheckpoint, priorFactsOf, renderFacts, surfaceEventsOf } from './checkpoint.js';
export type { ConstraintShape } from './constraints.js';
export { constraintShapeOf, constraintsOf } from './constraints.js';
export type { PickErrorLinesOptions, PickedErrorLines } from './error-lines.js';
export { findErrorLines, isErrorLine, pickErrorLines } from './error-lines.js';
export { openItemsOf } from './open-items.js';
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
export { SUMMARY_INSTRUCTIONS, transcriptOf } from './summarizer-model.js';
export type { Tokenizer, TokenizerName } from './tokenizer.js';
export { resolveTokenizer } from './tokenizer.js';
