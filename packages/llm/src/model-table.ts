import type { ModelStreamEvent, Usage } from '@spine/protocol';
import { ModelConfigError } from './errors.js';

/** USD prices per 1M tokens, one per disjoint usage bucket. */
export interface ModelPrice {
  /** Uncached input. */
  input: number;
  /** Input read from the provider's prompt cache. */
  cachedInput: number;
  /** Output, reasoning included. */
  output: number;
  /** Input written to the cache (Anthropic); defaults to `input` when absent. */
  cacheWrite?: number;
}

/** What Spine needs to know about one model. */
export interface ModelInfo {
  /** Provider name as used by the clients (`deepseek`, `openai`, `anthropic`, …). */
  provider: string;
  /** The model id sent on the wire. */
  id: string;
  /** Context window in tokens (prompt plus output). */
  contextWindow: number;
  /** Largest `max_tokens` the model accepts. */
  maxOutputTokens: number;
  /** Prices; absent when unknown (cost is then not computed). */
  price?: ModelPrice;
  /** Whether the model produces reasoning / thinking. */
  reasoning?: boolean;
  /** Whether the model accepts image input (absent: it does not). */
  images?: boolean;
  /** A note such as "retired 2026-07-24" or the date the figures were checked. */
  note?: string;
}

/** A model table: entries keyed by `provider/id`. Build one with {@link createModelTable}. */
export type ModelTable = ReadonlyMap<string, ModelInfo>;

const deepseekV4 = { contextWindow: 1_000_000, maxOutputTokens: 384_000, reasoning: true };
const deepseekLegacy =
  'V3.2-era name; aliased to deepseek-v4-flash from 2026-04-24, retired 2026-07-24';

/**
 * Built-in entries. Prices are snapshots (DeepSeek's official page as quoted on 2026-07-04,
 * OpenAI and Anthropic list prices); they change, so configuration should override them.
 */
export const DEFAULT_MODELS: readonly ModelInfo[] = [
  {
    provider: 'deepseek',
    id: 'deepseek-v4-flash',
    ...deepseekV4,
    price: { input: 0.14, cachedInput: 0.0028, output: 0.28 },
    note: 'prices as of 2026-07-04',
  },
  {
    provider: 'deepseek',
    id: 'deepseek-v4-pro',
    ...deepseekV4,
    price: { input: 0.435, cachedInput: 0.003625, output: 0.87 },
    note: 'prices as of 2026-07-04',
  },
  {
    provider: 'deepseek',
    id: 'deepseek-chat',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    price: { input: 0.28, cachedInput: 0.028, output: 0.42 },
    note: deepseekLegacy,
  },
  {
    provider: 'deepseek',
    id: 'deepseek-reasoner',
    contextWindow: 131_072,
    maxOutputTokens: 65_536,
    reasoning: true,
    price: { input: 0.28, cachedInput: 0.028, output: 0.42 },
    note: deepseekLegacy,
  },
  {
    provider: 'openai',
    id: 'gpt-4.1',
    images: true,
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    price: { input: 2, cachedInput: 0.5, output: 8 },
  },
  {
    provider: 'openai',
    id: 'gpt-4.1-mini',
    images: true,
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    price: { input: 0.4, cachedInput: 0.1, output: 1.6 },
  },
  {
    provider: 'openai',
    id: 'gpt-4o-mini',
    images: true,
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    price: { input: 0.15, cachedInput: 0.075, output: 0.6 },
  },
  {
    provider: 'openai',
    id: 'gpt-5',
    images: true,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    reasoning: true,
    price: { input: 1.25, cachedInput: 0.125, output: 10 },
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-4-5',
    images: true,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    reasoning: true,
    price: { input: 3, cachedInput: 0.3, output: 15, cacheWrite: 3.75 },
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-4-5',
    images: true,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    reasoning: true,
    price: { input: 5, cachedInput: 0.5, output: 25, cacheWrite: 6.25 },
  },
  {
    provider: 'anthropic',
    id: 'claude-haiku-4-5',
    images: true,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    reasoning: true,
    price: { input: 1, cachedInput: 0.1, output: 5, cacheWrite: 1.25 },
  },
];

/**
 * Builds a model table from {@link DEFAULT_MODELS} (or `base`) plus `extra` entries;
 * an extra entry with the same provider and id replaces the built-in one.
 *
 * @throws a {@link ModelConfigError} when an entry has a non-positive window or output cap, or a
 *   negative price.
 * @example
 * ```ts
 * const table = createModelTable([{ provider: 'deepseek', id: 'deepseek-v5', contextWindow: 2_000_000, maxOutputTokens: 384_000 }]);
 * ```
 */
export function createModelTable(
  extra: readonly ModelInfo[] = [],
  base: readonly ModelInfo[] = DEFAULT_MODELS,
): ModelTable {
  const table = new Map<string, ModelInfo>();
  for (const entry of [...base, ...extra]) {
    const key = `${entry.provider}/${entry.id}`;
    if (!(entry.contextWindow > 0) || !(entry.maxOutputTokens > 0)) {
      throw new ModelConfigError({
        key,
        problem: 'contextWindow and maxOutputTokens must be positive numbers',
      });
    }
    const prices = entry.price ? Object.values(entry.price) : [];
    if (prices.some((value) => typeof value !== 'number' || !(value >= 0))) {
      throw new ModelConfigError({
        key,
        problem: 'prices must be non-negative numbers (USD per 1M tokens)',
      });
    }
    table.set(key, entry);
  }
  return table;
}

/**
 * Finds a model: first by `provider/id`, then by id alone when exactly one provider lists it
 * (an OpenAI-compatible gateway serving `gpt-4.1`, say); a dated snapshot id falls back to its
 * undated family. Returns `undefined` when unknown.
 */
export function lookupModel(
  table: ModelTable,
  provider: string,
  id: string,
): ModelInfo | undefined {
  const exact = table.get(`${provider}/${id}`);
  if (exact) return exact;
  // Dated snapshots (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`) share their family's entry.
  const undated = id.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  if (undated !== id) return lookupModel(table, provider, undated);
  let found: ModelInfo | undefined;
  for (const entry of table.values()) {
    if (entry.id !== id) continue;
    if (found) return undefined;
    found = entry;
  }
  return found;
}

/** Cost in USD of one request's usage at `price` (disjoint buckets, each counted once). */
export function computeCost(usage: Usage, price: ModelPrice): number {
  const micro =
    usage.inputTokens * price.input +
    usage.cacheReadTokens * price.cachedInput +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return micro / 1_000_000;
}

/** Adds `costUsd` to a finish event's usage when the price is known; returns the event. */
export function withCost(event: ModelStreamEvent, price: ModelPrice | undefined): ModelStreamEvent {
  if (event.type === 'finish' && event.usage && price)
    event.usage.costUsd = computeCost(event.usage, price);
  return event;
}

/**
 * Whether `provider/id` accepts images: the table's `images` flag for a listed model (absent:
 * no), yes for a model the table does not list (a local or gateway model the user chose).
 */
export function modelAcceptsImages(table: ModelTable, provider: string, id: string): boolean {
  const entry = lookupModel(table, provider, id);
  return entry ? entry.images === true : true;
}
