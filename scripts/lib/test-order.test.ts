import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLOW_TEST_FILES, slowFirst } from './test-order.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

describe('slowFirst', () => {
  it('starts the listed files first, in list order, and keeps every other file in its order', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
    fc.assert(
      fc.property(fc.uniqueArray(name), fc.uniqueArray(name), (files, slow) => {
        const ordered = slowFirst(files, (file) => file, slow);
        expect([...ordered].sort()).toEqual([...files].sort());
        const listed = slow.filter((file) => files.includes(file));
        expect(ordered.slice(0, listed.length)).toEqual(listed);
        expect(ordered.slice(listed.length)).toEqual(files.filter((file) => !slow.includes(file)));
      }),
    );
  });

  it('lists test files that exist, each once', () => {
    expect(new Set(SLOW_TEST_FILES).size).toBe(SLOW_TEST_FILES.length);
    for (const file of SLOW_TEST_FILES) {
      expect(file).toMatch(/\.test\.ts$/);
      expect(existsSync(`${repo}${file}`), file).toBe(true);
    }
  });
});
