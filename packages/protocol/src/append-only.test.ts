import { describe, expect, it } from 'vitest';
import { isAppendOnly, markAppendOnly } from './append-only.js';

describe('markAppendOnly', () => {
  it('marks the array itself, not copies of it', () => {
    const items = markAppendOnly<number>([1, 2]);
    items.push(3);
    expect(isAppendOnly(items)).toBe(true);
    expect(isAppendOnly(items.slice())).toBe(false);
    expect(isAppendOnly([1, 2, 3])).toBe(false);
  });
});
