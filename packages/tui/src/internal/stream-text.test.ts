import { visibleText } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamText } from './stream-text.js';

const char = fc.constantFrom('a', '\r', '\n', '\t', '\u001b', '\u0085', '\ud83d', '\ude80', '好');
const text = fc.array(char, { maxLength: 30 }).map((chars) => chars.join(''));

describe('StreamText', () => {
  it('writes the bytes of the whole text sanitised, for any cut into chunks', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat({ max: 30 }), { maxLength: 6 }), (whole, cuts) => {
        const points = [...new Set(cuts.map((cut) => Math.min(cut, whole.length)))].sort(
          (a, b) => a - b,
        );
        const stream = new StreamText();
        const pieces: string[] = [];
        let from = 0;
        for (const point of [...points, whole.length]) {
          pieces.push(stream.push(whole.slice(from, point)));
          from = point;
        }
        pieces.push(stream.end());
        // Each piece is encoded on its own, as each write to a stream is.
        const written = Buffer.concat(pieces.map((piece) => Buffer.from(piece, 'utf8')));
        expect(written).toEqual(Buffer.from(visibleText(whole, { keepLineBreaks: true }), 'utf8'));
      }),
      { numRuns: 500 },
    );
  });

  it('carries a trailing CR and a trailing high surrogate to the next chunk', () => {
    const stream = new StreamText();
    expect(stream.push('one\r')).toBe('one');
    expect(stream.push('\ntwo \ud83d')).toBe('\ntwo ');
    expect(stream.push('\ude80')).toBe('🚀');
    expect(stream.push('\r')).toBe('');
    expect(stream.end()).toBe('\\x0d');
  });

  it('forgets what it carried when discarded', () => {
    const stream = new StreamText();
    stream.push('x\r');
    stream.discard();
    expect(stream.end()).toBe('');
  });
});
