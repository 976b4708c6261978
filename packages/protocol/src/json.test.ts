import { describe, expect, it } from 'vitest';
import { canonicalJson, findNonJson } from './json.js';

describe('findNonJson', () => {
  it('accepts plain JSON values', () => {
    expect(findNonJson({ a: [1, 'x', null, true, { b: 2 }] })).toBeUndefined();
  });
  it('names the path of a value JSON cannot hold', () => {
    expect(findNonJson({ a: [1, undefined] })).toBe('$.a[1] is undefined, which JSON cannot hold');
    expect(findNonJson({ n: Number.NaN })).toBe('$.n is a non-finite number');
    expect(findNonJson({ d: new Date(0) })).toBe('$.d is a class instance, not a plain object');
  });
  it('detects cycles but allows shared references', () => {
    const shared = { x: 1 };
    expect(findNonJson({ a: shared, b: shared })).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(findNonJson(cyclic)).toBe('$.self is a cycle');
  });
});

describe('canonicalJson', () => {
  it('sorts keys so equal values serialise equally', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[1,2]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });
});
