import { describe, expect, it } from 'vitest';
import { ModelConfigError } from './errors.js';
import { computeCost, createModelTable, DEFAULT_MODELS, lookupModel } from './model-table.js';

describe('model table', () => {
  it('lists the DeepSeek V4 family and the legacy names', () => {
    const table = createModelTable();
    expect(lookupModel(table, 'deepseek', 'deepseek-v4-flash')?.contextWindow).toBe(1_000_000);
    expect(lookupModel(table, 'deepseek', 'deepseek-v4-pro')?.maxOutputTokens).toBe(384_000);
    expect(lookupModel(table, 'deepseek', 'deepseek-chat')?.contextWindow).toBe(131_072);
    expect(lookupModel(table, 'deepseek', 'deepseek-reasoner')?.reasoning).toBe(true);
    expect(DEFAULT_MODELS.length).toBeGreaterThanOrEqual(8);
  });

  it('lets configuration add and override entries', () => {
    const table = createModelTable([
      {
        provider: 'deepseek',
        id: 'deepseek-v4-flash',
        contextWindow: 1_000_000,
        maxOutputTokens: 8192,
        price: { input: 1, cachedInput: 0.1, output: 2 },
      },
      { provider: 'local', id: 'qwen3', contextWindow: 32_768, maxOutputTokens: 4096 },
    ]);
    expect(lookupModel(table, 'deepseek', 'deepseek-v4-flash')?.price?.input).toBe(1);
    expect(lookupModel(table, 'openai-compatible', 'qwen3')?.provider).toBe('local');
    expect(lookupModel(table, 'anthropic', 'claude-sonnet-4-5-20250929')?.id).toBe(
      'claude-sonnet-4-5',
    );
    expect(lookupModel(table, 'deepseek', 'nope')).toBeUndefined();
  });

  it('rejects unusable entries with a typed error', () => {
    expect(() =>
      createModelTable([{ provider: 'x', id: 'y', contextWindow: 0, maxOutputTokens: 1 }]),
    ).toThrow(ModelConfigError);
    expect(() =>
      createModelTable([
        {
          provider: 'x',
          id: 'y',
          contextWindow: 1,
          maxOutputTokens: 1,
          price: { input: -1, cachedInput: 0, output: 0 },
        },
      ]),
    ).toThrow(/x\/y/);
  });

  it('computes cost over disjoint buckets, cache writes at their own price', () => {
    const usage = {
      inputTokens: 1_000_000,
      cacheReadTokens: 2_000_000,
      cacheWriteTokens: 1_000_000,
      outputTokens: 500_000,
      reasoningTokens: 400_000,
    };
    expect(
      computeCost(usage, { input: 3, cachedInput: 0.3, output: 15, cacheWrite: 3.75 }),
    ).toBeCloseTo(3 + 0.6 + 3.75 + 7.5);
    expect(computeCost(usage, { input: 1, cachedInput: 0.1, output: 2 })).toBeCloseTo(
      1 + 0.2 + 1 + 1,
    );
  });
});
