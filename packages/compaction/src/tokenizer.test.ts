import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { resolveTokenizer } from './tokenizer.js';

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
