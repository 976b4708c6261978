import { afterEach, describe, expect, it, vi } from 'vitest';
import { nowIso } from './clock.js';

describe('nowIso', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('equals Date#toISOString across milliseconds, seconds and years', () => {
    vi.useFakeTimers();
    const times = [
      Date.UTC(2026, 10, 30, 10, 55, 19, 0),
      Date.UTC(2026, 10, 30, 10, 55, 19, 7),
      Date.UTC(2026, 10, 30, 10, 55, 19, 999),
      Date.UTC(2026, 10, 30, 10, 55, 20, 0),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 1),
      Date.UTC(12000, 0, 1, 0, 0, 0, 5),
      Date.UTC(12000, 0, 1, 0, 0, 0, 6),
      Date.UTC(1969, 11, 31, 23, 59, 59, 500),
      Date.UTC(1969, 11, 31, 23, 59, 59, 501),
      Date.UTC(2026, 10, 30, 10, 55, 19, 42),
    ];
    for (const time of times) {
      vi.setSystemTime(time);
      expect(nowIso()).toBe(new Date(time).toISOString());
    }
  });
});
