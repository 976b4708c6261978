// Folding a filter to fewer bits gives the filter built at that size from the same strings, so a
// folded filter (a migrated version 2 state) never loses a string it held.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BloomBits } from './bloom.js';

describe('BloomBits.foldTo', () => {
  it('equals the filter built at the smaller size from the same strings', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 200 }),
        fc.integer({ min: 3, max: 14 }),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 1, max: 12 }),
        (strings, large, fewer, probes) => {
          const small = Math.max(3, large - fewer);
          const built = new BloomBits(2 ** large, probes);
          const direct = new BloomBits(2 ** small, probes);
          for (const value of strings) {
            built.add(value);
            direct.add(value);
          }
          const folded = built.foldTo(2 ** small);
          expect(folded.toJSON()).toBe(direct.toJSON());
          for (const value of strings) expect(folded.mayHave(value)).toBe(true);
        },
      ),
    );
  });

  it('refuses to fold to more bits or to a size that is not a power of two', () => {
    const filter = new BloomBits(64, 3);
    expect(() => filter.foldTo(128)).toThrow(RangeError);
    expect(() => filter.foldTo(24)).toThrow(RangeError);
  });
});
