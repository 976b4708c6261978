import { findNonJson } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainJson } from './json-check.js';

describe('isPlainJson', () => {
  it('accepts exactly what findNonJson accepts, for JSON values and common non-JSON values', () => {
    const odd = fc.constantFrom<unknown>(
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      () => 1,
      Symbol('s'),
      10n,
      new Date(0),
      new Map(),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        odd,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (candidate) => {
        expect(isPlainJson(candidate)).toBe(findNonJson(candidate) === undefined);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves cycles and very deep nesting to findNonJson', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(isPlainJson(cyclic)).toBe(false);
    expect(findNonJson(cyclic)).toMatch(/cycle/);
  });
});
