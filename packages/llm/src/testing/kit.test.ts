import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ConformanceCase, ConformanceFailure, runCases } from './kit.js';

// An implementation under test can throw or reject with anything; the report must still name
// every failing case with a message, and runCases itself must never throw.
describe('the kit runner', () => {
  it('reports any thrown value as a failure with a message, in case order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.anything(), { nil: undefined }), { maxLength: 8 }),
        async (outcomes) => {
          const cases: ConformanceCase<null>[] = outcomes.map((outcome, i) => ({
            name: `case ${i}`,
            run: async () => {
              if (outcome !== undefined) throw outcome;
            },
          }));
          const report = await runCases(cases, null, { timeoutMs: 5_000 });
          const failing = outcomes.flatMap((o, i) => (o === undefined ? [] : [`case ${i}`]));
          expect(report.failed.map((f) => f.name)).toEqual(failing);
          expect(report.passed).toBe(outcomes.length - failing.length);
          expect(report.ok).toBe(failing.length === 0);
          for (const failure of report.failed) expect(failure.message.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps a ConformanceFailure message as is and reports a case that never settles', async () => {
    const report = await runCases(
      [
        {
          name: 'fails',
          run: async () => {
            throw new ConformanceFailure('expected x, got y');
          },
        },
        { name: 'hangs', run: () => new Promise<void>(() => {}) },
        {
          name: 'throws',
          run: async () => {
            throw new TypeError('bad');
          },
        },
      ],
      null,
      { timeoutMs: 200 },
    );
    expect(report.failed).toEqual([
      { name: 'fails', message: 'expected x, got y' },
      { name: 'hangs', message: 'did not finish within 200 ms (a call never settled?)' },
      { name: 'throws', message: 'unexpectedly threw TypeError: bad' },
    ]);
  });
});
