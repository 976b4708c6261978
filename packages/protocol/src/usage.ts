import { z } from 'zod';

/**
 * Token usage of one model request in disjoint buckets: every token is counted once.
 * `inputTokens` excludes cache reads and writes; `outputTokens` includes reasoning, of which
 * `reasoningTokens` is a sub-count (never add it again).
 */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
});
/** Token usage of one request in disjoint buckets; see {@link UsageSchema}. */
export type Usage = z.infer<typeof UsageSchema>;

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
