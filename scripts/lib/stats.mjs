// The statistics the side-by-side benchmark scripts report (bench-compare.mjs,
// bench-step-interleaved.mjs): medians, and 90% bootstrap intervals that are the same for the
// same samples (a seeded generator), so a rerun of the report does not move its intervals.

/** The median of `list` (the mean of the two middle values of an even count). */
export function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A seeded PRNG (mulberry32): numbers in [0, 1). */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The 90% bootstrap interval of `statistic(...lists)`: every list resampled with replacement
 * 2,000 times (in the order given, from one generator seeded with `seed`), the statistic taken
 * each time; returns its 5th and 95th percentiles.
 */
export function bootstrap90(lists, statistic, seed) {
  const next = seededRandom(seed);
  const resample = (list) => Array.from(list, () => list[Math.floor(next() * list.length)]);
  const values = [];
  for (let i = 0; i < 2000; i++) values.push(statistic(...lists.map(resample)));
  values.sort((x, y) => x - y);
  return [values[100], values[1899]];
}
