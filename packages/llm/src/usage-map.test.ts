import { describe, expect, it } from 'vitest';
import { usageFromAnthropic, usageFromOpenAI } from './usage-map.js';

describe('usage mapping', () => {
  it('uses DeepSeek hit/miss counts and keeps reasoning inside output', () => {
    expect(
      usageFromOpenAI({
        prompt_tokens: 374,
        completion_tokens: 61,
        total_tokens: 435,
        prompt_tokens_details: { cached_tokens: 256 },
        completion_tokens_details: { reasoning_tokens: 17 },
        prompt_cache_hit_tokens: 256,
        prompt_cache_miss_tokens: 118,
      }),
    ).toEqual({
      inputTokens: 118,
      cacheReadTokens: 256,
      cacheWriteTokens: 0,
      outputTokens: 61,
      reasoningTokens: 17,
    });
  });

  it('subtracts OpenAI cached tokens and OpenRouter cache writes from prompt tokens', () => {
    expect(
      usageFromOpenAI({
        prompt_tokens: 10122,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 9984 },
      }),
    ).toEqual({
      inputTokens: 138,
      cacheReadTokens: 9984,
      cacheWriteTokens: 0,
      outputTokens: 5,
    });
    expect(
      usageFromOpenAI({
        prompt_tokens: 100,
        completion_tokens: 1,
        prompt_tokens_details: { cached_tokens: 10, cache_write_tokens: 50 },
      }),
    ).toMatchObject({ inputTokens: 40, cacheReadTokens: 10, cacheWriteTokens: 50 });
  });

  it('maps Anthropic usage with cache reads, writes and thinking tokens', () => {
    expect(
      usageFromAnthropic({
        input_tokens: 3,
        cache_read_input_tokens: 18639,
        cache_creation_input_tokens: 12,
        output_tokens: 100,
        output_tokens_details: { thinking_tokens: 62 },
      }),
    ).toEqual({
      inputTokens: 3,
      cacheReadTokens: 18639,
      cacheWriteTokens: 12,
      outputTokens: 100,
      reasoningTokens: 62,
    });
  });

  it('keeps the cost OpenRouter reports', () => {
    expect(usageFromOpenAI({ prompt_tokens: 10, completion_tokens: 2, cost: 0.0012 }).costUsd).toBe(
      0.0012,
    );
  });
});
