// `spine resume` of large sessions (10k and 100k events; 1M with SPINE_BENCH_1M=1), generated here
// (nothing checked in): a coding session of tool-calling turns, compacted every 200 turns as the
// agent would be. Each figure is taken in a fresh process (this file run again as a child), after
// a warm-up on a small session there (module loading is excluded): the lazy open (wall and CPU),
// resume ready for input (startAgentSession), resume to the first model request, a full
// Session.open of the same file, and the bytes each read (rchar of /proc/self/io: every read
// syscall, page-cache hits included). The last line is one JSON object. Targets (issues 41 and
// 42): first request at the largest size ≤ 1.2× at 10k, open CPU ≤ 1.5× 10k, 100k resume ready
// ≤ 1.5× Session.open of the same file. The first request is judged in process CPU time from the
// start to the request (the wall time is reported beside it): beside `npm test` at load 6, the
// wall ratio of single rounds ranged 0.84-1.93 around sizes whose reads differ by 2%.
//
// Every size and mode runs in every round, their order rotating round by round, so a machine that
// is busy for a while slows both sizes alike (measured one size after the other, the open-CPU
// ratio of two sessions whose lazy opens otherwise measured 0.9-1.0× read 1.64× in one run at
// load ~7). Each round gives its ratios; a figure is their median, judged against its
// target, and its distribution-free 90% interval is printed beside it. The interval is not what
// passes or fails: one lazy open costs ~8 ms of CPU, and at load 5-9 on the shared 2-core machine
// single rounds of equal-cost sessions ranged 0.5-2.1×, so with 9 rounds the interval reached
// 1.95 around a median of 1.01. The snapshot bytes are a figure of their own: the lazy open reads
// the whole snapshot, so its CPU follows them (a 256 KiB Bloom filter of tool call ids, in every
// snapshot past 2,048 calls, once made the 100k snapshot 3.2× the 10k one and its open 1.8-2.6×).
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, medianInterval, roundOrder } from '../../../scripts/lib/bench-interleave.js';
import { type Figures, generate, inChild } from './resume-session.js';

const TARGETS = { firstRequest: 1.2, openCpu: 1.5, readyToFullOpen: 1.5 };

async function main() {
  const sizes = [10_000, 100_000, ...(process.env.SPINE_BENCH_1M === '1' ? [1_000_000] : [])];
  // 9 rounds: with 5, a median of 1.42 came out once for the tree whose 100k open costs twice
  // the 10k one (1.74 and 2.47 with 9).
  const rounds = Number(process.env.SPINE_BENCH_ROUNDS ?? 9);
  // SPINE_BENCH_DIR keeps the generated sessions there (and reuses them on the next run).
  const kept = process.env.SPINE_BENCH_DIR;
  const root = kept ?? mkdtempSync(join(tmpdir(), 'spine-bench-resume-large-'));
  const sessionDir = join(root, 'sessions');
  const cwd = join(root, 'ws');
  mkdirSync(cwd, { recursive: true });
  const exists = (id: string) => existsSync(join(sessionDir, `${id}.jsonl`));
  try {
    if (!exists('warm')) await generate(sessionDir, 'warm', cwd, 2_000);
    const written: Record<string, number> = {};
    for (const events of sizes) {
      const id = `s${events}`;
      written[id] = exists(id) ? events : await generate(sessionDir, id, cwd, events);
    }
    // A full open is the baseline of the 100k target only (1M events held would need GBs).
    const jobs = sizes.flatMap((events) =>
      ['open-lazy', ...(events <= 100_000 ? ['open-full'] : []), 'ready', 'first-request'].map(
        (mode) => ({ id: `s${events}`, mode }),
      ),
    );
    const samples: Record<string, Record<string, Figures[]>> = {};
    const largestId = `s${sizes.at(-1)}`;
    const ratios = {
      openCpu: [] as number[],
      firstRequestCpu: [] as number[],
      firstRequest: [] as number[],
      ready: [] as number[],
    };
    for (let round = 0; round < rounds; round++) {
      for (const { id, mode } of roundOrder(jobs, round)) {
        const byMode = samples[id] ?? {};
        samples[id] = byMode;
        byMode[mode] = [...(byMode[mode] ?? []), inChild(mode, sessionDir, id, 'warm', cwd)];
      }
      const at = (id: string, mode: string) => samples[id]?.[mode]?.[round] as Figures;
      ratios.openCpu.push(at(largestId, 'open-lazy').cpuMs / at('s10000', 'open-lazy').cpuMs);
      ratios.firstRequestCpu.push(
        at(largestId, 'first-request').firstRequestCpuMs /
          at('s10000', 'first-request').firstRequestCpuMs,
      );
      ratios.firstRequest.push(
        at(largestId, 'first-request').firstRequestMs /
          at('s10000', 'first-request').firstRequestMs,
      );
      ratios.ready.push(at('s100000', 'ready').ms / at('s100000', 'open-full').ms);
      console.log(
        `round ${round + 1}/${rounds}: open CPU ${ratios.openCpu[round]?.toFixed(2)}x, first ` +
          `request CPU ${ratios.firstRequestCpu[round]?.toFixed(2)}x ` +
          `(wall ${ratios.firstRequest[round]?.toFixed(2)}x), ready ÷ full open 100k ` +
          `${ratios.ready[round]?.toFixed(2)}x (load ${loadavg()[0]?.toFixed(1)})`,
      );
    }
    const rows: Record<string, Record<string, number>> = {};
    for (const events of sizes) {
      const id = `s${events}`;
      const of = (mode: string, key: keyof Figures) =>
        samples[id]?.[mode] ? median((samples[id][mode] ?? []).map((f) => f[key])) : Number.NaN;
      rows[id] = {
        events: written[id] as number,
        logBytes: statSync(join(sessionDir, `${id}.jsonl`)).size,
        snapshotBytes: statSync(join(sessionDir, `${id}.jsonl.snapshot`)).size,
        lazyOpenMs: of('open-lazy', 'ms'),
        lazyOpenCpuMs: of('open-lazy', 'cpuMs'),
        lazyOpenReadBytes: of('open-lazy', 'readBytes'),
        fullOpenMs: of('open-full', 'ms'),
        readyMs: of('ready', 'ms'),
        readyReadBytes: of('ready', 'readBytes'),
        firstRequestMs: of('first-request', 'firstRequestMs'),
        firstRequestCpuMs: of('first-request', 'firstRequestCpuMs'),
        firstRequestReadBytes: of('first-request', 'readBytes'),
      };
      console.log(id, JSON.stringify(rows[id]));
    }
    const small = rows.s10000 as Record<string, number>;
    const largest = rows[largestId] as Record<string, number>;
    const round2 = (value: number) => Number(value.toFixed(2));
    const figure = (values: number[]) => ({
      median: round2(median(values)),
      interval90: medianInterval(values).map(round2),
    });
    const judged = {
      firstRequestCpuLargestTo10k: figure(ratios.firstRequestCpu),
      firstRequestLargestTo10k: figure(ratios.firstRequest),
      openCpuLargestTo10k: figure(ratios.openCpu),
      readyToFullOpen100k: figure(ratios.ready),
    };
    const pass =
      judged.firstRequestCpuLargestTo10k.median <= TARGETS.firstRequest &&
      judged.openCpuLargestTo10k.median <= TARGETS.openCpu &&
      judged.readyToFullOpen100k.median <= TARGETS.readyToFullOpen;
    console.log(
      JSON.stringify({
        bench: 'cli/resume-large',
        rounds,
        rows,
        ratios: {
          ...Object.fromEntries(Object.entries(judged).map(([key, value]) => [key, value.median])),
          snapshotBytesLargestTo10k: round2(
            (largest.snapshotBytes as number) / (small.snapshotBytes as number),
          ),
          readBytesLargestTo10k: round2(
            (largest.firstRequestReadBytes as number) / (small.firstRequestReadBytes as number),
          ),
        },
        intervals: Object.fromEntries(
          Object.entries(judged).map(([key, value]) => [key, value.interval90]),
        ),
        targets: {
          firstRequestCpuLargestTo10k: TARGETS.firstRequest,
          openCpuLargestTo10k: TARGETS.openCpu,
          readyToFullOpen100k: TARGETS.readyToFullOpen,
        },
        load: round2(loadavg()[0] as number),
        pass,
      }),
    );
  } finally {
    if (!kept) rmSync(root, { recursive: true, force: true });
  }
}

await main();
