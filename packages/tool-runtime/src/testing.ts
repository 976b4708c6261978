// Public API of @spine/tool-runtime/testing. Every export here is a semver promise.
// The ToolScheduler conformance kit, free of any test framework: a scheduler written outside
// Spine runs it to show it keeps the protocol's contract.

export { checkToolScheduler, toolSchedulerConformanceCases } from './testing/check.js';
export type {
  CheckOptions,
  ConformanceCase,
  ConformanceCaseFailure,
  ConformanceReport,
} from './testing/kit.js';
export { ConformanceFailure, DEFAULT_CASE_TIMEOUT_MS } from './testing/kit.js';
export type { ToolSchedulerFixture } from './testing/scheduler-cases.js';
