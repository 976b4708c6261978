// A running tool's output reaches the terminal as real lines (line feeds and tabs kept), with
// nothing a terminal would act on: whatever the chunking, and whatever bytes the tool printed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputTail, outputLine, outputText } from './live-text.js';

/** Characters a terminal acts on or hides, besides the line feed and the tab. */
const ACTED_ON =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/;

const hostile = fc
  .array(
    fc.constantFrom(
      'a',
      'line',
      ' ',
      '日',
      '🙂',
      '\n',
      '\r',
      '\r\n',
      '\t',
      '\u001b',
      '[2J',
      '[3J',
      ']52;c;aGk=\u0007',
      ']0;title\u001b\\',
      'P+q\u001b\\',
      '\u009b',
      '\u009d',
      '\u007f',
      '\u202e',
      '\u2066',
      '\u200b',
      '\u0008',
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

describe('outputLine / outputText', () => {
  it('keeps tabs and line feeds, shows escapes as text, lets a carriage return restart the line', () => {
    expect(outputText('a\tb\nc\r\nd')).toBe('a\tb\nc\nd');
    expect(outputLine('10%\r55%\r100%')).toBe('100%');
    expect(outputLine('done\r')).toBe('done');
    expect(outputLine('red\u001b[31m \u001b]52;c;aGk=\u0007 \u202eevil')).toBe(
      'red\\x1b[31m \\x1b]52;c;aGk=\\x07 \\u202eevil',
    );
  });

  it('leaves nothing a terminal acts on but \\n and \\t, for any input (property)', () => {
    fc.assert(
      fc.property(hostile, (raw) => {
        expect(outputText(raw)).not.toMatch(ACTED_ON);
        expect(outputText(raw).split('\n')).toHaveLength(raw.split('\n').length);
      }),
    );
  });
});

describe('OutputTail', () => {
  it('gives the same lines however the output is cut into chunks (property)', () => {
    fc.assert(
      fc.property(hostile, fc.array(fc.nat(), { maxLength: 8 }), (raw, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (raw.length + 1)))].sort(
          (a, b) => a - b,
        );
        const tail = new OutputTail(3);
        const lines: string[] = [];
        let from = 0;
        for (const point of [...points, raw.length]) {
          lines.push(...tail.push(raw.slice(from, point)));
          from = point;
        }
        lines.push(...tail.finish());
        const whole = raw === '' ? [] : outputText(raw.replace(/\n$/, '')).split('\n');
        expect(lines).toEqual(whole);
        expect(tail.lineCount).toBe(whole.length);
        expect(tail.tail()).toEqual(whole.slice(-3));
      }),
    );
  });

  it('holds the last lines and the line being written for a live view', () => {
    const tail = new OutputTail(2);
    expect(tail.push('one\ntwo\nthr')).toEqual(['one', 'two']);
    expect(tail.tail()).toEqual(['two', 'thr']);
    expect(tail.push('ee\n')).toEqual(['three']);
    expect(tail.tail()).toEqual(['two', 'three']);
    expect(tail.lineCount).toBe(3);
  });
});
