import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  interleave,
  judge,
  median,
  medianInterval,
  ratioCheck,
  roundOrder,
} from './bench-interleave.js';

describe('roundOrder', () => {
  it('puts every side in every position equally often over 2 × sides rounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.nat(50), (count, start) => {
        const names = Array.from({ length: count }, (_, i) => i);
        const seen = names.map(() => names.map(() => 0));
        for (let round = start * 2 * count; round < (start + 1) * 2 * count; round++) {
          const order = roundOrder(names, round);
          expect([...order].sort()).toEqual(names);
          order.forEach((name, position) => {
            seen[name]![position]! += 1;
          });
        }
        for (const row of seen) for (const cell of row) expect(cell).toBe(2);
      }),
    );
  });
});

describe('medianInterval', () => {
  it('holds the median and lies within the samples', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e9, max: 1e9 }), { minLength: 1 }),
        (xs) => {
          const [low, high] = medianInterval(xs);
          const m = median(xs);
          expect(low).toBeLessThanOrEqual(m);
          expect(high).toBeGreaterThanOrEqual(m);
          expect(low).toBeGreaterThanOrEqual(Math.min(...xs));
          expect(high).toBeLessThanOrEqual(Math.max(...xs));
        },
      ),
    );
  });

  it('picks the textbook order statistics: x(24) and x(37) of 60 at 90%', () => {
    const xs = Array.from({ length: 60 }, (_, i) => 60 - i); // 60 … 1, unsorted on purpose
    expect(medianInterval(xs, 0.9)).toEqual([24, 37]);
    expect(medianInterval([5, 1, 3], 0.9)).toEqual([1, 5]); // too few values: the whole range
  });

  it('covers the true median of skewed samples at least 90% of the time', () => {
    // Exponential samples (median ln 2), like timings: a long tail to the right.
    let state = 12345;
    const random = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return (state + 0.5) / 2 ** 32;
    };
    let covered = 0;
    const trials = 2000;
    for (let trial = 0; trial < trials; trial++) {
      const xs = Array.from({ length: 41 }, () => -Math.log(random()));
      const [low, high] = medianInterval(xs, 0.9);
      if (low <= Math.LN2 && Math.LN2 <= high) covered++;
    }
    expect(covered / trials).toBeGreaterThanOrEqual(0.88);
    expect(covered / trials).toBeLessThanOrEqual(0.97); // not the whole range either
  });

  it('does not underflow with many samples', () => {
    const xs = Array.from({ length: 5000 }, (_, i) => i);
    const [low, high] = medianInterval(xs);
    expect(low).toBeGreaterThan(2400);
    expect(high).toBeLessThan(2600);
  });
});

describe('judge', () => {
  it('passes only when the whole interval meets the target', () => {
    const values = Array.from({ length: 61 }, (_, i) => 2 + i / 60); // median 2.5, 2 … 3
    const [, high] = medianInterval(values);
    expect(judge('r', values, { atMost: high }).pass).toBe(true);
    expect(judge('r', values, { atMost: 2.51 }).pass).toBe(false); // median under, interval not
    expect(judge('r', values, { atLeast: 2.49 }).pass).toBe(false);
    expect(judge('r', values, { atLeast: 2 }).pass).toBe(true);
    expect(judge('r', values, { atMost: 3 }).target).toBe('<= 3');
  });
});

describe('interleave', () => {
  it('alternates the order, drops the warm-up rounds and keeps a side’s own time', async () => {
    const calls: string[] = [];
    const samples = await interleave({
      sides: {
        a: () => {
          calls.push('a');
          return 2;
        },
        b: async () => {
          calls.push('b');
          await Promise.resolve();
          // Busy for 2 ms (a timer may fire early by the clock the helper reads).
          const until = performance.now() + 2;
          while (performance.now() < until);
          return undefined;
        },
      },
      rounds: 4,
      warmup: 2,
    });
    expect(calls.join('')).toBe('abbabaababba');
    expect(samples.a).toEqual([2, 2, 2, 2]);
    expect(samples.b).toHaveLength(4);
    for (const time of samples.b) expect(time).toBeGreaterThanOrEqual(2);
    const check = ratioCheck(samples, 'a', 'b', { atMost: 1000 });
    expect(check.rounds).toBe(4);
    expect(check.name).toBe('a ÷ b');
  });
});
