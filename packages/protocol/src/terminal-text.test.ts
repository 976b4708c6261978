import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { visibleJson, visibleText } from './terminal-text.js';

/** Everything a terminal might act on: C0 (but LF and TAB), DEL, C1, bidi and invisible format characters. */
const ACTIVE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the test.
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/;

const hostile = fc.array(
  fc.oneof(
    fc.string(),
    fc.constantFrom(
      '\u001b[2J',
      '\u001b[H',
      '\u001b]0;title\u0007',
      '\u001b[1A\u001b[2K',
      '\u009b31m',
      '\r',
      '\r\n',
      '\b',
      '\u202e',
      '\u2066',
      '\u200b',
      '\u0000',
      '\u007f',
      '\ufeff',
    ),
  ),
);

describe('visibleText', () => {
  it('makes escape and control sequences visible', () => {
    expect(visibleText('ok\u001b[2J')).toBe('ok\\x1b[2J');
    expect(visibleText('a\u009b31mb')).toBe('a\\x9b31mb');
    expect(visibleText('rm -rf /\r# safe')).toBe('rm -rf /\\x0d# safe');
    expect(visibleText('x\u202eexe.txt')).toBe('x\\u202eexe.txt');
    expect(visibleText('a\nb\tc')).toBe('a\\x0ab\\tc');
    expect(visibleText('a\r\nb\tc\rd', { keepLineBreaks: true })).toBe('a\nb\tc\\x0dd');
    expect(visibleText('ünïcode ✓ 日本')).toBe('ünïcode ✓ 日本');
  });

  it('never lets a control character through (property)', () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (parts, keep) => {
        const shown = visibleText(parts.join(''), { keepLineBreaks: keep });
        const rest = keep ? shown.replace(/[\n\t]/g, '') : shown;
        expect(ACTIVE.test(rest)).toBe(false);
        expect(shown.includes('\t') || shown.includes('\n')).toBe(
          keep && /[\n\t]/.test(parts.join('').replace(/\r(?!\n)/g, '')),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('visibleJson keeps JSON valid and equal while escaping what JSON.stringify leaves raw', () => {
    fc.assert(
      fc.property(hostile, (parts) => {
        const value = { text: parts.join(''), list: parts };
        const json = visibleJson(JSON.stringify(value, null, 2));
        expect(JSON.parse(json)).toEqual(value);
        expect(ACTIVE.test(json.replace(/\n/g, ''))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
