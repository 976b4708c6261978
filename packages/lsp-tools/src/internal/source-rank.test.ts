import { describe, expect, it } from 'vitest';
import { isTestPath } from './source-rank.js';

describe('isTestPath', () => {
  it('tells tests, fixtures and benchmarks from source, by folder and by file name', () => {
    const root = '/w';
    const tests = [
      'packages/a/test/helpers.ts',
      'src/__tests__/x.ts',
      'src/x.test.ts',
      'src/x.spec.tsx',
      'src/x.test-d.ts',
      'bench/run.ts',
      'src/x.bench.mts',
      'pkg/test_util.py',
      'pkg/util_test.go',
      'test/fixtures/ts-project/src/main.ts',
    ];
    const source = [
      'packages/a/src/index.ts',
      'src/testing.ts',
      'src/contest.ts',
      'src/latest/x.ts',
    ];
    for (const path of tests) expect(isTestPath(root, `${root}/${path}`), path).toBe(true);
    for (const path of source) expect(isTestPath(root, `${root}/${path}`), path).toBe(false);
  });
});
