import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutAtCodePoint } from './text-cut.js';

describe('cutAtCodePoint', () => {
  it('never leaves a lone surrogate from a well-formed text, and cuts at most one unit short', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), fc.nat(120), (text, max) => {
        const cut = cutAtCodePoint(text, max);
        expect(cut).not.toMatch(/\p{Cs}/u);
        expect(text.startsWith(cut)).toBe(true);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(max, text.length) - 1);
      }),
    );
  });
});
