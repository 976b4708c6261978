// The order `vitest run` starts test files in. A fresh CI clone has no vitest results cache, so
// vitest falls back to "largest file first", and a short file that runs for minutes (one
// language server over the whole repository, thousands of fuzzed streams, a CLI spawned dozens
// of times) can start last and leave the other worker idle. The files below start first,
// heaviest first; every other file follows in vitest's own order.

/**
 * Test files known to run longest (repository-relative, heaviest first), from the durations of
 * a full CI run. A file missing from the repository is ignored, so a rename only loses its
 * head start. Keep it short: only files that run for tens of seconds on a 2-core machine.
 */
export const SLOW_TEST_FILES: readonly string[] = [
  'packages/lsp-tools/test/typescript-repository.test.ts',
  'packages/agent-loop/test/provider-fuzz.test.ts',
  'apps/reference-cli/test/run.test.ts',
  'apps/reference-cli/test/memory.test.ts',
  'packages/web-tools/test/html-markdown-structure.test.ts',
  'apps/reference-cli/test/workers.test.ts',
  'apps/reference-cli/test/acp-stdio.test.ts',
  'apps/reference-cli/test/hooks-events.test.ts',
  'apps/reference-cli/test/subagents-crash.test.ts',
  'apps/reference-cli/test/crash-verdicts.test.ts',
  'apps/reference-cli/test/plan-mode.test.ts',
  'apps/reference-cli/test/run.io-robustness.test.ts',
  'apps/reference-cli/test/mcp-e2e.test.ts',
  'apps/reference-cli/test/rerun-manual-compaction.test.ts',
  'apps/reference-cli/test/store-faults.test.ts',
  'apps/reference-cli/test/subagents.test.ts',
  'apps/reference-cli/test/resume-reads.test.ts',
  'apps/reference-cli/test/provider-switch.test.ts',
  'apps/reference-cli/test/titles.test.ts',
  'apps/reference-cli/test/anthropic.test.ts',
  'packages/tool-runtime/test/hostile-commands.test.ts',
  'packages/compaction/src/token-meter.test.ts',
];

/**
 * `items` reordered: those whose repository-relative path is in `slow` first, in the order of
 * `slow`, then all others in their original order. Returns a new array; `items` is unchanged.
 */
export function slowFirst<T>(
  items: readonly T[],
  pathOf: (item: T) => string,
  slow: readonly string[] = SLOW_TEST_FILES,
): T[] {
  const rank = new Map(slow.map((path, index) => [path, index]));
  const head = items.filter((item) => rank.has(pathOf(item)));
  const tail = items.filter((item) => !rank.has(pathOf(item)));
  head.sort((a, b) => rank.get(pathOf(a))! - rank.get(pathOf(b))!);
  return [...head, ...tail];
}
