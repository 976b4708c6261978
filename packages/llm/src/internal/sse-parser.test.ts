import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from './sse-parser.js';

function parse(pieces: (string | Uint8Array)[]): {
  events: SseEvent[];
  dataCounts: number[];
  comments: number;
} {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  const dataCounts: number[] = [];
  const encoder = new TextEncoder();
  for (const piece of pieces) {
    dataCounts.push(
      parser.push(typeof piece === 'string' ? encoder.encode(piece) : piece, (e) => events.push(e)),
    );
  }
  parser.end((e) => events.push(e));
  return { events, dataCounts, comments: parser.comments };
}

describe('SseParser', () => {
  it('dispatches on blank lines, joins multi-line data and strips one space after the colon', () => {
    const { events } = parse(['data: a\ndata:  b\n\nevent: ping\ndata:{"x":1}\n\n']);
    expect(events).toEqual([
      { event: undefined, data: 'a\n b' },
      { event: 'ping', data: '{"x":1}' },
    ]);
  });

  it('drops comments and does not count them as data', () => {
    const { events, dataCounts, comments } = parse([
      ': keep-alive\n\n',
      ': keep-alive\n\n',
      'data: 1\n\n',
    ]);
    expect(events).toEqual([{ event: undefined, data: '1' }]);
    expect(dataCounts).toEqual([0, 0, 1]);
    expect(comments).toBe(2);
  });

  it('handles CRLF and frames split anywhere, including inside a UTF-8 character', () => {
    const bytes = new TextEncoder().encode('data: caf\u00e9 \u2713\r\n\r\ndata: [DONE]\r\n\r\n');
    const pieces = Array.from(bytes, (byte) => new Uint8Array([byte]));
    const { events } = parse(pieces);
    expect(events.map((event) => event.data)).toEqual(['caf\u00e9 \u2713', '[DONE]']);
  });

  it('dispatches a last event that lacks its blank line at end of stream', () => {
    expect(parse(['data: tail']).events).toEqual([{ event: undefined, data: 'tail' }]);
  });

  it('ignores id, retry and unknown fields, and a field line without a colon', () => {
    const { events } = parse(['id: 7\nretry: 10\nfoo: bar\ndata\n\n']);
    expect(events).toEqual([{ event: undefined, data: '' }]);
  });

  it('gives the same events however the byte stream is cut (property)', () => {
    const text =
      ': keep-alive\r\n\r\ndata: {"a":"caf\u00e9"}\n\nevent: x\ndata: 1\ndata: 2\n\n: c\ndata: \u2713\u00f7\r\n\r\ndata: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    const expected = parse([bytes]).events;
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 20 }),
        (cuts) => {
          const sorted = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          const pieces = sorted.slice(1).map((end, i) => bytes.subarray(sorted[i], end));
          expect(parse(pieces).events).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('drops a BOM that opens the stream, keeps a later U+FEFF, and decodes bad bytes as U+FFFD', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const rest = new TextEncoder().encode('data: \ufeffx\n\n');
    const joined = new Uint8Array([...bom, ...rest]);
    expect(parse([joined]).events).toEqual([{ event: undefined, data: '\ufeffx' }]);
    // The same with the first chunk ending inside the BOM (the streaming decoder's path).
    expect(parse([joined.subarray(0, 2), joined.subarray(2)]).events).toEqual([
      { event: undefined, data: '\ufeffx' },
    ]);
    const invalid = new Uint8Array([...new TextEncoder().encode('data: a'), 0xff, 0x0a, 0x0a]);
    expect(parse([invalid]).events).toEqual([{ event: undefined, data: 'a\ufffd' }]);
  });

  it('gives the same events however the stream is cut, with a BOM and split characters (property)', () => {
    const text =
      '\ufeffdata: \u00e9\ufeff\u2713\n\n: c\ndata: \ud83d\ude00 x\r\n\r\ndata: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    const expected = [
      { event: undefined, data: '\u00e9\ufeff\u2713' },
      { event: undefined, data: '\ud83d\ude00 x' },
      { event: undefined, data: '[DONE]' },
    ];
    expect(parse([bytes]).events).toEqual(expected);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }),
        (cuts) => {
          const sorted = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          const pieces = sorted.slice(1).map((end, i) => bytes.subarray(sorted[i], end));
          expect(parse(pieces).events).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
