// The project memory file lives in `.spine/`, which is protected: the sandbox binds it read-only
// and file-tool writes there need a person. The remember tool appends one-line facts to it under
// the approval policy (project memory is written without asking under auto-edit), and its content
// is text for the model, not code a command runs, so the runtime's list leaves that one file out.

const SPINE_DIR = '.spine/**';
const MEMORY_FILE_EXCEPTION = ['.spine', '.spine/!(memory.md)', '.spine/*/**'];

/**
 * The protected paths the tool runtime enforces: `patterns` with `.spine/**` narrowed to
 * everything in `.spine` but the project memory file `.spine/memory.md`.
 */
export function runtimeProtectedPaths(patterns: readonly string[]): string[] {
  return patterns.flatMap((pattern) => (pattern === SPINE_DIR ? MEMORY_FILE_EXCEPTION : [pattern]));
}
