import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { boundedCounter, resolveTokenizer } from './tokenizer.js';

// The package ships gpt-tokenizer's ranks (ranks/*.json.br) instead of depending on gpt-tokenizer;
// these tests hold the shipped files and the counts to gpt-tokenizer itself (a devDependency).
const NO_SPECIALS = { disallowedSpecial: new Set<string>() };

function shipped(encoding: string): unknown {
  const file = new URL(`../ranks/${encoding}.json.br`, import.meta.url);
  return JSON.parse(brotliDecompressSync(readFileSync(file)).toString('utf8'));
}

/** Text of the kinds a coding session holds: code, prose, Unicode, markers, whitespace runs. */
const sessionText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(
      fc.constantFrom(
        'const x = 42;',
        '\n',
        '    ',
        'naïve café',
        '日本語のテキスト',
        '🙂👩‍💻',
        '<|endoftext|>',
        '<|im_start|>',
        'function f(a, b) { return a + b; }',
        '$ npm test\n',
        'Error: ENOENT',
        '\t\t',
        '0123456789',
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join('')),
);

describe('shipped byte-pair ranks', () => {
  it('are exactly gpt-tokenizer 4.0.0 ranks for o200k_base and cl100k_base', () => {
    expect(shipped('o200k_base')).toEqual(o200kRanks);
    expect(shipped('cl100k_base')).toEqual(cl100kRanks);
  });

  it('count every text as gpt-tokenizer does, special-token markers as plain text', () => {
    const o200k = resolveTokenizer('o200k');
    const cl100k = resolveTokenizer('cl100k');
    fc.assert(
      fc.property(sessionText, (text) => {
        expect(o200k.count(text)).toBe(o200kCount(text, NO_SPECIALS));
        expect(cl100k.count(text)).toBe(cl100kCount(text, NO_SPECIALS));
      }),
      { numRuns: 300 },
    );
  });

  it('counts known strings', () => {
    expect(resolveTokenizer('o200k').count('')).toBe(0);
    expect(resolveTokenizer('o200k').count('Hello, world!')).toBe(4);
    expect(resolveTokenizer('cl100k').count('Hello, world!')).toBe(4);
  });
});

describe('bounded counting of long texts', () => {
  /** A counter that records how many characters it was asked to count, and the longest text. */
  function metered(): { count: (text: string) => number; chars: number; longest: number } {
    const meter = {
      chars: 0,
      longest: 0,
      count: (text: string) => {
        meter.chars += text.length;
        meter.longest = Math.max(meter.longest, text.length);
        return o200kCount(text, NO_SPECIALS);
      },
    };
    return meter;
  }

  it('counts 10 MiB of one character from a bounded amount of work, close to the exact count', () => {
    const text = 'A'.repeat(10 * 1024 * 1024);
    const inner = metered();
    const tokens = boundedCounter(inner.count)(text);
    // o200k takes 8 A's a token; the full byte-pair run on this text takes minutes.
    expect(tokens).toBe(text.length / 8);
    expect(inner.longest).toBeLessThanOrEqual(4_096);
    expect(inner.chars).toBeLessThanOrEqual(128 * 1024);
  });

  it('does work that does not grow with the length of a text over the exact limit', () => {
    const unit = 'lorem ipsum dolor sit amet, 0123 ';
    const small = metered();
    boundedCounter(small.count)(unit.repeat(Math.ceil(200_000 / unit.length)));
    const text = unit.repeat(Math.ceil(2_000_000 / unit.length));
    const large = metered();
    const tokens = boundedCounter(large.count)(text);
    // 32 samples of at most 4 Ki characters each, whatever the length (10 times more here).
    expect(small.chars).toBeLessThanOrEqual(128 * 1024);
    expect(large.chars).toBeLessThanOrEqual(128 * 1024);
    const exact = o200kCount(text, NO_SPECIALS);
    expect(Math.abs(tokens - exact) / exact).toBeLessThan(0.01);
  });

  it('counts texts up to the exact limit as the whole-text count does', () => {
    const count = boundedCounter((text) => o200kCount(text, NO_SPECIALS));
    fc.assert(
      fc.property(fc.array(sessionText, { minLength: 20, maxLength: 120 }), (parts) => {
        const text = parts.join(' ');
        const exact = o200kCount(text, NO_SPECIALS);
        // Pieces are cut before whitespace where possible; a cut elsewhere moves a token or two.
        expect(Math.abs(count(text) - exact)).toBeLessThanOrEqual(
          2 * Math.ceil(text.length / 2_048),
        );
      }),
      { numRuns: 60 },
    );
  });
});
