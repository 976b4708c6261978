import type { Usage } from '@spine/protocol';

type Json = Record<string, unknown>;

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

function object(value: unknown): Json {
  return typeof value === 'object' && value !== null ? (value as Json) : {};
}

/**
 * Maps an OpenAI-style `usage` object (DeepSeek, OpenAI, OpenRouter, xAI, vLLM …) to disjoint
 * buckets: DeepSeek's `prompt_cache_hit/miss_tokens` when present, else
 * `prompt_tokens − cached_tokens − cache_write_tokens`. Output includes reasoning; when a
 * server counts reasoning outside `completion_tokens` (xAI: total = prompt + completion +
 * reasoning) it is added so output still includes it exactly once.
 */
export function usageFromOpenAI(raw: unknown): Usage {
  const usage = object(raw);
  const details = object(usage.prompt_tokens_details);
  const completionDetails = object(usage.completion_tokens_details);
  const prompt = count(usage.prompt_tokens);
  let completion = count(usage.completion_tokens);
  const reasoning = completionDetails.reasoning_tokens;
  let cacheRead: number;
  let cacheWrite = 0;
  let input: number;
  if (usage.prompt_cache_hit_tokens !== undefined || usage.prompt_cache_miss_tokens !== undefined) {
    cacheRead = count(usage.prompt_cache_hit_tokens);
    input =
      usage.prompt_cache_miss_tokens !== undefined
        ? count(usage.prompt_cache_miss_tokens)
        : Math.max(0, prompt - cacheRead);
  } else {
    cacheRead = count(details.cached_tokens);
    cacheWrite = count(details.cache_write_tokens);
    input = Math.max(0, prompt - cacheRead - cacheWrite);
  }
  const reasoningTokens = count(reasoning);
  const total = count(usage.total_tokens);
  if (
    reasoningTokens > 0 &&
    total === prompt + completion + reasoningTokens &&
    total !== prompt + completion
  ) {
    completion += reasoningTokens;
  }
  const out: Usage = {
    inputTokens: input,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    outputTokens: completion,
  };
  if (reasoning !== undefined) out.reasoningTokens = reasoningTokens;
  // OpenRouter reports what it charged; a price from the model table replaces it when known.
  if (typeof usage.cost === 'number' && Number.isFinite(usage.cost) && usage.cost >= 0)
    out.costUsd = usage.cost;
  return out;
}

/**
 * Maps Anthropic's usage (message_start merged with the cumulative message_delta totals):
 * `input_tokens` is already uncached input; cache reads and writes are their own buckets.
 */
export function usageFromAnthropic(raw: unknown): Usage {
  const usage = object(raw);
  const out: Usage = {
    inputTokens: count(usage.input_tokens),
    cacheReadTokens: count(usage.cache_read_input_tokens),
    cacheWriteTokens: count(usage.cache_creation_input_tokens),
    outputTokens: count(usage.output_tokens),
  };
  const details = object(usage.output_tokens_details);
  if (details.thinking_tokens !== undefined) out.reasoningTokens = count(details.thinking_tokens);
  return out;
}
