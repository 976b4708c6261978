// Median and a distribution-free confidence interval of the median, for benchmarks that judge a
// ratio measured round by round (baseline and subject interleaved in one process, so a busy
// machine slows both alike). The interval is the pair of order statistics x(k), x(n-k+1) with the
// largest k whose coverage, from the binomial distribution of how many rounds fall below the true
// median, is at least the confidence asked for; with few rounds it widens to the extremes.

/** A median with its confidence interval. */
export interface MedianInterval {
  median: number;
  low: number;
  high: number;
  /** The interval's actual coverage (≥ the confidence asked for unless too few rounds). */
  coverage: number;
}

/** P(X ≤ k) for X ~ Binomial(n, 1/2). */
function binomialCdf(n: number, k: number): number {
  let term = 0.5 ** n;
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/** The median of `values` and an interval around it covering the true median with `confidence`. */
export function medianInterval(values: readonly number[], confidence = 0.9): MedianInterval {
  if (values.length === 0) throw new RangeError('medianInterval needs at least one value');
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const middle = n >> 1;
  const median = n % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  // x(k)..x(n-k+1) (1-based) misses the median with probability 2·P(X ≤ k-1).
  let k = 1;
  while (k + 1 <= n - k && 1 - 2 * binomialCdf(n, k) >= confidence) k++;
  return {
    median,
    low: sorted[k - 1]!,
    high: sorted[n - k]!,
    coverage: 1 - 2 * binomialCdf(n, k - 1),
  };
}

/** `{ median, low, high }` rounded to two decimals, for a benchmark's JSON line. */
export function rounded(interval: MedianInterval): { median: number; low: number; high: number } {
  const r = (value: number) => +value.toFixed(2);
  return { median: r(interval.median), low: r(interval.low), high: r(interval.high) };
}
