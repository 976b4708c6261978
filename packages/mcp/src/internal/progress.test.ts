import { describe, expect, it } from 'vitest';
import { coalesce, type ProgressClock } from './progress.js';

/** A clock the test moves by hand: no real time passes. */
function manualClock(): ProgressClock & { advance(ms: number): void } {
  let now = 0;
  let timers: { at: number; run: () => void; id: number }[] = [];
  let next = 0;
  return {
    now: () => now,
    setTimeout: (run, ms) => {
      next += 1;
      timers.push({ at: now + ms, run, id: next });
      return next;
    },
    clearTimeout: (id) => {
      timers = timers.filter((timer) => timer.id !== id);
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((timer) => timer.at <= now);
      timers = timers.filter((timer) => timer.at > now);
      for (const timer of due) timer.run();
    },
  };
}

describe('progress coalescing', () => {
  it('passes a burst of 5, then at most one per 250 ms, and the last one on flush', () => {
    const clock = manualClock();
    const shown: number[] = [];
    const progress = coalesce<number>((value) => shown.push(value), { clock });
    // 30,000 notifications over 3 s (one every 0.1 ms).
    for (let index = 1; index <= 30_000; index++) {
      progress.push(index);
      if (index % 10 === 0) clock.advance(1);
    }
    progress.flush();
    expect(shown.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(shown.at(-1)).toBe(30_000);
    expect(shown.length).toBeLessThanOrEqual(5 + 3_000 / 250 + 1);
    expect([...shown].sort((a, b) => a - b)).toEqual(shown);
  });

  it('passes slow progress unchanged', () => {
    const clock = manualClock();
    const shown: number[] = [];
    const progress = coalesce<number>((value) => shown.push(value), { clock });
    for (let index = 1; index <= 20; index++) {
      progress.push(index);
      clock.advance(300);
    }
    progress.flush();
    expect(shown).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
  });
});
