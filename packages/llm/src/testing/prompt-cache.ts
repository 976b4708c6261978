/** Token counts of one request's prompt under the emulated prefix cache. */
export interface PromptCacheResult {
  /** Estimated prompt tokens (characters / 4, rounded up). */
  promptTokens: number;
  /** Tokens served from the emulated cache (a multiple of 64). */
  hitTokens: number;
  /** The rest: `promptTokens - hitTokens`. */
  missTokens: number;
}

/** Characters per token used by the estimate. */
const CHARS_PER_TOKEN = 4;
/** DeepSeek's cache storage unit, in tokens. */
const UNIT_TOKENS = 64;

/**
 * Emulates DeepSeek's automatic prefix cache: a request's cached part is the longest common
 * prefix (in characters of the serialised tools + messages) with ANY earlier request, converted
 * to tokens (4 characters each) and rounded down to 64-token units.
 */
export class PromptCacheEmulator {
  private readonly seen: string[] = [];

  /** Measures `key` (the serialised prompt) against earlier prompts, then remembers it. */
  measure(key: string, enabled: boolean): PromptCacheResult {
    const promptTokens = Math.ceil(key.length / CHARS_PER_TOKEN);
    let best = 0;
    if (enabled) {
      for (const earlier of this.seen) best = Math.max(best, commonPrefixLength(earlier, key));
    }
    this.seen.push(key);
    const hitTokens = Math.min(
      promptTokens,
      Math.floor(Math.floor(best / CHARS_PER_TOKEN) / UNIT_TOKENS) * UNIT_TOKENS,
    );
    return { promptTokens, hitTokens, missTokens: promptTokens - hitTokens };
  }
}

/** Length of the longest common prefix of `a` and `b`. */
export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let low = 0;
  // Compare in blocks first (fast path for long identical prefixes), then character by character.
  const block = 4096;
  while (low + block <= limit && a.slice(low, low + block) === b.slice(low, low + block))
    low += block;
  while (low < limit && a.charCodeAt(low) === b.charCodeAt(low)) low++;
  return low;
}
