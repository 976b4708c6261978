import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createScanArena } from './escape-scan.js';
import { encodeJsonLine, jsonLineArena } from './json-line.js';

/** The encoded line as bytes (a copy), or undefined when it does not fit. */
function encoded(value: unknown, start = 0): Buffer | undefined {
  const end = encodeJsonLine(value, start);
  return end < 0 ? undefined : Buffer.from(jsonLineArena().subarray(start, end));
}

const expected = (value: unknown): Buffer => Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');

describe('escape scan', () => {
  it('runs in WebAssembly, and like its JS fallback flags exactly the bytes JSON escapes', () => {
    expect(String(createScanArena(1).dirty)).toContain('native code');
    for (const wasm of [true, false]) checkScan(createScanArena(1, { wasm }));
  });
});

describe('in-place escape', () => {
  it('escapes any well-formed string in place exactly as JSON.stringify, in WebAssembly and in JS', () => {
    const arenas = [createScanArena(1), createScanArena(1, { wasm: false })];
    expect(String(arenas[0]!.expand)).toContain('native code');
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({
        unit: fc.constantFrom(
          'a',
          'b',
          '"',
          '\\',
          '\n',
          '\t',
          '\r',
          '\b',
          '\f',
          '\u000b',
          '\u0001',
          '\u001f',
          '\u007f',
          'é',
          '😀',
        ),
        maxLength: 100,
      }),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 40 }), (value, start) => {
        fc.pre((value as unknown as { isWellFormed(): boolean }).isWellFormed());
        for (const arena of arenas) {
          arena.bytes.fill(0x78, 0, 2048);
          const end = start + arena.bytes.write(value, start);
          const extra = arena.extra(start, end);
          const escaped = JSON.stringify(value).slice(1, -1);
          expect(end + extra - start).toBe(Buffer.byteLength(escaped));
          expect(arena.expand(start, end, extra)).toBe(end + extra);
          expect(arena.bytes.toString('utf8', start, end + extra)).toBe(escaped);
          // nothing before the string is touched
          expect(arena.bytes.subarray(0, start).every((byte) => byte === 0x78)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

/** Checks `dirty` over every position and length up to 40 bytes, for each byte JSON escapes. */
function checkScan(arena: ReturnType<typeof createScanArena>): void {
  for (let length = 0; length <= 40; length++) {
    arena.bytes.fill(0x61, 0, 64);
    expect(arena.dirty(3, 3 + length)).toBe(0);
    for (let at = 0; at < length; at++) {
      for (const byte of [0x00, 0x0a, 0x1f, 0x22, 0x5c]) {
        arena.bytes.fill(0x61, 0, 64);
        arena.bytes[3 + at] = byte;
        expect(arena.dirty(3, 3 + length)).toBe(1);
      }
      arena.bytes.fill(0x61, 0, 64);
      arena.bytes[3 + at] = 0x7f;
      arena.bytes[3 + length] = 0x22; // just past the end: not looked at
      expect(arena.dirty(3, 3 + length)).toBe(0);
    }
  }
}

describe('encodeJsonLine', () => {
  it('gives the bytes of JSON.stringify plus a newline for any JSON value', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: 'grapheme-ascii', minLength: 30, maxLength: 200 }),
      fc.string({
        unit: fc.constantFrom('a', '"', '\\', '\n', '\u0001', 'é', '😀', '\ud800'),
        maxLength: 60,
      }),
    );
    const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-0, 1e21, 5e-324));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        number,
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(text, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (body) => {
        const event = { seq: 7, type: 'user/message', at: new Date(0).toISOString(), body };
        expect(encoded(event)).toEqual(expected(event));
      }),
      { numRuns: 400 },
    );
  });

  it('follows JSON.stringify for values JSON has no place for', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const cases: unknown[] = [
      { a: undefined, b: () => 1, c: Symbol('s'), d: 1 },
      [undefined, () => 1, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY],
      { when: new Date(0), point: new Point(2), map: new Map([[1, 2]]) },
      { custom: { toJSON: () => 'replaced' } },
      Object.assign(Object.create(null), { bare: true }),
      { '\u0000key"\\': 'é\ud800', 7: 'numeric keys first' },
    ];
    for (const value of cases) expect(encoded(value)).toEqual(expected(value));
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = { next: deep };
    expect(encoded(deep)).toEqual(expected(deep));
  });

  it('throws what JSON.stringify throws and leaves the next line intact', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    for (let i = 0; i < 70; i++) cyclic.self = { wrap: cyclic.self };
    expect(() => encodeJsonLine(cyclic, 0)).toThrow(TypeError);
    expect(() => encodeJsonLine({ big: 10n }, 0)).toThrow(TypeError);
    expect(encoded({ ok: 1 })).toEqual(expected({ ok: 1 }));
  });

  it('appends after earlier lines without touching them, and reports a line that does not fit', () => {
    const first = encodeJsonLine({ seq: 1 }, 0);
    const second = encodeJsonLine({ seq: 2, body: 'x'.repeat(100) }, first);
    expect(jsonLineArena().subarray(0, second).toString()).toBe(
      `${JSON.stringify({ seq: 1 })}\n${JSON.stringify({ seq: 2, body: 'x'.repeat(100) })}\n`,
    );
    const size = jsonLineArena().length;
    expect(encodeJsonLine({ text: 'x'.repeat(2 * 1024 * 1024) }, second)).toBe(-1);
    expect(encodeJsonLine({ text: 'x'.repeat(100) }, size - 50)).toBe(-1);
    expect(jsonLineArena().subarray(0, second).toString()).toContain('"seq":1');
  });

  it('refuses to run re-entrantly, from a toJSON called during an encode', () => {
    const toJSON = (): string => {
      encodeJsonLine({ nested: true }, 0);
      return 'v';
    };
    expect(() => encodeJsonLine({ value: { toJSON } }, 0)).toThrow(/not re-entrant/);
    expect(encoded({ ok: 2 })).toEqual(expected({ ok: 2 }));
  });
});
