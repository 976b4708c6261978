// Public API of @spine/cli. Every export here is a semver promise.
// The package is mainly the `spine` binary. These exports are the pieces other harnesses and
// scripts reuse: the exit codes of the command-line contract and the workspace file search
// behind `@path` completion, which lives in tool-runtime and is re-exported here unchanged.
// (The recorded-output model behind `spine rerun` is agent-loop's.)

export type { FileSearchOptions, FileSearchResult } from '@spine/tool-runtime';
export { fileReferencesOf, searchWorkspaceFiles } from '@spine/tool-runtime';
export type { ExitCode } from './exit-codes.js';
export { EXIT_CODES } from './exit-codes.js';
