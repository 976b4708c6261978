// Public API of @spine/cli. Every export here is a semver promise.
// The package is mainly the `spine` binary. These exports are the pieces other harnesses and
// scripts reuse: the exit codes of the command-line contract, the recorded-output model behind
// `spine rerun`, and the workspace file search behind `@path` completion.

export type { ExitCode } from './exit-codes.js';
export { EXIT_CODES } from './exit-codes.js';
export type { FileSearchOptions, FileSearchResult } from './file-search.js';
export { fileReferencesOf, searchWorkspaceFiles } from './file-search.js';
export type { RecordedModel, RecordedModelOptions } from './model-recorded.js';
export { createRecordedModel } from './model-recorded.js';
