import { z } from 'zod';
/**
 * Token usage of one model request in disjoint buckets: every token is counted once.
 * `inputTokens` excludes cache reads and writes; `outputTokens` includes reasoning, of which
 * `reasoningTokens` is a sub-count (never add it again).
 */
export declare const UsageSchema: z.ZodObject<
  {
    inputTokens: z.ZodNumber;
    cacheReadTokens: z.ZodNumber;
    cacheWriteTokens: z.ZodNumber;
    outputTokens: z.ZodNumber;
    reasoningTokens: z.ZodOptional<z.ZodNumber>;
    costUsd: z.ZodOptional<z.ZodNumber>;
  },
  z.core.$strip
>;
/** Token usage of one request in disjoint buckets; see {@link UsageSchema}. */
export type Usage = z.infer<typeof UsageSchema>;
/** Total prompt tokens of a usage record: uncached input plus cache reads and writes. */
export declare function promptTokensOf(usage: Usage): number;
/** Adds two usage records bucket by bucket. */
export declare function addUsage(a: Usage, b: Usage): Usage;
//# sourceMappingURL=usage.d.ts.map
