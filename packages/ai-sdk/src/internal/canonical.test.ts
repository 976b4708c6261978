import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameAsJson, toJson } from './canonical.js';

const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '10', '9'));
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.uint8Array({ maxLength: 8 }),
    fc.date({ noInvalidDate: false }),
    fc.array(tie('any'), { maxLength: 3 }),
    fc.dictionary(key, tie('any'), { maxKeys: 3 }),
  ),
})).any;

describe('canonical JSON', () => {
  it('sameAsJson (the fast prefix check) agrees with comparing canonical texts (property)', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const converted = toJson(b);
        const plain = canonicalJson(toJson(a) ?? null) === canonicalJson(converted ?? null);
        expect(sameAsJson(a, converted ?? null)).toBe(plain);
        expect(sameAsJson(b, converted ?? null)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a __proto__ member as data and survives a JSON round trip', () => {
    const raw = JSON.parse('{"__proto__":{"polluted":true},"a":1}');
    const json = toJson(raw);
    expect(Object.keys(json as object)).toEqual(['__proto__', 'a']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    const back = JSON.parse(JSON.stringify(json));
    expect(canonicalJson(back)).toBe(canonicalJson(json ?? null));
  });
});
