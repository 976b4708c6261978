// Public API of @spine/compaction/testing. Every export here is a semver promise.
// Conformance kits for TokenMeter, Summarizer and CompactionEngine, free of any test framework:
// an implementation written outside Spine runs them to show it keeps the protocol's contracts.

export type { CompactionEngineFixture } from './testing/cases-engine.js';
export type { TokenMeterFixture } from './testing/cases-meter.js';
export type { SummarizerFixture } from './testing/cases-summarizer.js';
export { sampleInput } from './testing/cases-summarizer.js';
export {
  checkCompactionEngine,
  checkSummarizer,
  checkTokenMeter,
  compactionEngineConformanceCases,
  summarizerConformanceCases,
  tokenMeterConformanceCases,
} from './testing/check.js';
export type {
  CheckOptions,
  ConformanceCase,
  ConformanceCaseFailure,
  ConformanceReport,
} from './testing/kit.js';
export { ConformanceFailure, DEFAULT_CASE_TIMEOUT_MS } from './testing/kit.js';
