// The runner and assertions are shared by every kit: they live in @spine/protocol/testing.
export type {
  CheckOptions,
  ConformanceCase,
  ConformanceCaseFailure,
  ConformanceReport,
} from '@spine/protocol/testing';
export {
  ConformanceFailure,
  DEFAULT_CASE_TIMEOUT_MS,
  describeError,
  ensure,
  runCases,
  show,
  works,
} from '@spine/protocol/testing';
