import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fit } from './panel-lines.js';

/** The test alphabet's terminal widths, written out independently of the code under test. */
const WIDE = new Set(['日', '語', '한', '🙂', '本', 'の', 'テ', 'キ', 'ス', 'ト']);
const columns = (text: string): number =>
  [...text].reduce((sum, c) => sum + (WIDE.has(c) ? 2 : 1), 0);

describe('fit (a panel line stays on one row)', () => {
  it('keeps text that fits and cuts longer text with an ellipsis', () => {
    expect(fit('read src/a.ts', 20)).toBe('read src/a.ts');
    expect(fit('abcdefghij', 10)).toBe('abcdefghij');
    expect(fit('abcdefghijk', 10)).toBe('abcdefghi…');
    expect(fit('日本語のテキスト', 8)).toBe('日本語…');
  });

  it('never exceeds the width, for any text of ASCII, CJK and emoji', () => {
    const char = fc.constantFrom('a', 'Z', ' ', '·', '日', '語', '한', '🙂', '→');
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 80 }),
        fc.integer({ min: 2, max: 60 }),
        (chars, max) => {
          const text = chars.join('');
          const shown = fit(text, max);
          expect(columns(shown)).toBeLessThanOrEqual(max);
          if (columns(text) <= max) expect(shown).toBe(text);
          else {
            expect(shown.endsWith('…')).toBe(true);
            expect(text.startsWith(shown.slice(0, -1))).toBe(true);
          }
        },
      ),
    );
  });
});
