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

export { addUsage, promptTokensOf } from './usage-math.js';
