// The zod-free usage arithmetic (the schema is in usage.ts): part of `@spine/protocol/core`.
import type { Usage } from './usage.js';

/** Total prompt tokens of a usage record: uncached input plus cache reads and writes. */
export function promptTokensOf(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Adds two usage records bucket by bucket. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) {
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  }
  if (a.costUsd !== undefined || b.costUsd !== undefined)
    sum.costUsd = (a.costUsd ?? 0) + (b.costUsd ?? 0);
  return sum;
}
