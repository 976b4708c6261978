// Benchmarks that hold on a busy machine: the baseline and the subject run in one process, round by
// round (the order alternating), so a machine that slows down for a while (on a shared 2-core VM,
// whole processes run 20-50% slower for seconds) slows both sides in the same rounds. The figure
// is the median of the per-round ratios, reported with a distribution-free interval, and a check
// passes only when its whole interval is on the right side of the target.
//
//   const samples = await interleave({ sides: { baseline, pipeline }, rounds: 200, warmup: 50 });
//   const check = ratioCheck(samples, 'pipeline', 'baseline', { atMost: 3 });
//   printReport({ bench: 'tool-runtime/pipeline', checks: [check], figures: { ... } });
//
// `npm run bench` (scripts/bench.mjs) reads `checks` from the last JSON line and prints one
// pass/fail line per benchmark.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One side of a round: does the work once and returns its time in ms, or nothing, in which case
 * the wall time of the whole call is taken (setup that must not count returns its own figure).
 */
export type BenchSide = () => Promise<number | undefined> | number | undefined;

/** Options of {@link interleave}. */
export interface InterleaveOptions<Name extends string> {
  /** The sides, by name; every round runs each once. */
  sides: Record<Name, BenchSide>;
  /** Measured rounds. */
  rounds: number;
  /** Rounds run first and discarded (JIT warm-up, caches, pools). Default 0. */
  warmup?: number;
  /** Collect garbage before every timed call (both sides alike). Default true. */
  gc?: boolean;
  /** Called after every measured round with its index and each side's time in ms. */
  onRound?: (round: number, times: Record<Name, number>) => void;
}

/** Each side's time in ms, one entry per measured round, in round order. */
export type InterleavedSamples<Name extends string> = Record<Name, number[]>;

let collector: (() => void) | undefined;
function collectGarbage(): void {
  if (!collector) {
    setFlagsFromString('--expose-gc');
    collector = (globalThis.gc ?? runInNewContext('gc')) as () => void;
  }
  collector();
}

/**
 * The order of the sides in round `round`: forward on even rounds, reversed on odd ones, and
 * rotated every two rounds, so every side runs in every position equally often.
 */
export function roundOrder<Name>(names: readonly Name[], round: number): Name[] {
  const shift = (round >> 1) % names.length;
  const rotated = [...names.slice(shift), ...names.slice(0, shift)];
  return round % 2 ? rotated.reverse() : rotated;
}

/**
 * Runs every side once per round, `warmup` + `rounds` rounds, order alternating per
 * {@link roundOrder}; returns the measured rounds' times.
 * @throws whatever a side throws (a side checks its own result and throws when it is wrong).
 */
export async function interleave<Name extends string>(
  options: InterleaveOptions<Name>,
): Promise<InterleavedSamples<Name>> {
  const names = Object.keys(options.sides) as Name[];
  const warmup = options.warmup ?? 0;
  const gc = options.gc ?? true;
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    Name,
    number[]
  >;
  for (let round = 0; round < warmup + options.rounds; round++) {
    const times = {} as Record<Name, number>;
    for (const name of roundOrder(names, round)) {
      if (gc) collectGarbage();
      const started = performance.now();
      const own = await options.sides[name]();
      times[name] = own ?? performance.now() - started;
    }
    if (round < warmup) continue;
    for (const name of names) samples[name].push(times[name]);
    options.onRound?.(round - warmup, times);
  }
  return samples;
}

/**
 * This process's CPU time in ms (user + system, all threads): waiting for a busy core does not
 * inflate it, so it stays meaningful when other processes share the cores (wall time does not).
 */
export function cpuNow(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** The median of `values` (the mean of the two middle values of an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * A distribution-free confidence interval of the median of `values`: the order statistics
 * x(k) and x(n+1-k) with the largest k for which P(Binomial(n, ½) < k) ≤ (1 − level) / 2. Exact
 * for any continuous distribution and the same for the same samples. With too few values for the
 * level (under 5 at 90%) it is the whole range.
 */
export function medianInterval(values: readonly number[], level = 0.9): [number, number] {
  if (values.length === 0) throw new Error('interval of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const tail = (1 - level) / 2;
  // P(X ≤ j) for X ~ Binomial(n, ½), in log space so large n does not underflow.
  let logPmf = n * Math.log(0.5);
  let cdf = 0;
  let k = 0; // the largest k with P(X ≤ k − 1) ≤ tail
  for (let j = 0; j < n; j++) {
    cdf += Math.exp(logPmf);
    if (cdf > tail) break;
    k = j + 1;
    logPmf += Math.log(n - j) - Math.log(j + 1);
  }
  if (k === 0) return [sorted[0]!, sorted[n - 1]!];
  return [sorted[k - 1]!, sorted[n - k]!];
}

/** A target: the figure must be at most, or at least, a value. */
export type BenchTarget = { atMost: number } | { atLeast: number };

/** One judged figure of a benchmark, as `npm run bench` prints it. */
export interface BenchCheck {
  /** What is measured, e.g. `pipeline ÷ baseline`. */
  name: string;
  /** The median of the per-round values. */
  figure: number;
  /** The confidence interval of the median, at `level`. */
  interval: [number, number];
  /** The interval's confidence level, e.g. 0.9. */
  level: number;
  /** `<= 3` or `>= 1`. */
  target: string;
  /** Rounds the figure is the median of. */
  rounds: number;
  /** True when the whole interval meets the target. */
  pass: boolean;
}

const round3 = (value: number): number => Number(value.toPrecision(4));

/**
 * Judges per-round values against a target: the figure is their median, and the check passes
 * when the whole confidence interval of the median meets the target (its upper end for `atMost`,
 * its lower end for `atLeast`): "within target with 95% confidence" at the default 90% level.
 */
export function judge(
  name: string,
  values: readonly number[],
  target: BenchTarget,
  level = 0.9,
): BenchCheck {
  const [low, high] = medianInterval(values, level);
  const pass = 'atMost' in target ? high <= target.atMost : low >= target.atLeast;
  return {
    name,
    figure: round3(median(values)),
    interval: [round3(low), round3(high)],
    level,
    target: 'atMost' in target ? `<= ${target.atMost}` : `>= ${target.atLeast}`,
    rounds: values.length,
    pass,
  };
}

/** The per-round ratios `subject ÷ baseline` of interleaved samples. */
export function perRoundRatios<Name extends string>(
  samples: InterleavedSamples<Name>,
  subject: Name,
  baseline: Name,
): number[] {
  return samples[subject].map((time, round) => time / samples[baseline][round]!);
}

/**
 * Judges the per-round ratio `subject ÷ baseline` of interleaved samples against `target`
 * (see {@link judge}); named `subject ÷ baseline` unless `name` is given.
 */
export function ratioCheck<Name extends string>(
  samples: InterleavedSamples<Name>,
  subject: Name,
  baseline: Name,
  target: BenchTarget,
  options: { name?: string; level?: number } = {},
): BenchCheck {
  const ratios = perRoundRatios(samples, subject, baseline);
  return judge(options.name ?? `${subject} ÷ ${baseline}`, ratios, target, options.level);
}

/** Each side's median time in ms, rounded to 3 decimals. */
export function medianTimes<Name extends string>(
  samples: InterleavedSamples<Name>,
): Record<Name, number> {
  const out = {} as Record<Name, number>;
  for (const name of Object.keys(samples) as Name[])
    out[name] = Number(median(samples[name]).toFixed(3));
  return out;
}

/** A check as one human-readable line: `PASS pipeline ÷ baseline 2.41 [2.33, 2.52] <= 3`. */
export function formatCheck(check: BenchCheck): string {
  const [low, high] = check.interval;
  return `${check.pass ? 'PASS' : 'FAIL'} ${check.name} ${check.figure} [${low}, ${high}] ${check.target}`;
}

/**
 * Prints each check on its own line, then the benchmark's JSON line (last): `bench`, the extra
 * `figures`, the `checks`, and `pass` (every check passed). Sets a non-zero exit code when one
 * failed.
 */
export function printReport(report: {
  bench: string;
  checks: BenchCheck[];
  figures?: Record<string, unknown>;
}): void {
  for (const check of report.checks) console.log(formatCheck(check));
  const pass = report.checks.every((check) => check.pass);
  console.log(
    JSON.stringify({ bench: report.bench, ...report.figures, checks: report.checks, pass }),
  );
  if (!pass) process.exitCode = 1;
}
