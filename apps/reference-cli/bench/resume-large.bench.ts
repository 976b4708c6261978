// `spine resume` of large sessions (10k and 100k events; 1M with SPINE_BENCH_1M=1), generated here
// (nothing checked in): a coding session of tool-calling turns, compacted every 200 turns as the
// agent would be. Each figure is taken in a fresh process (this file run again as a child), after
// a warm-up on a small session there (module loading is excluded): the lazy open (wall and CPU),
// resume ready for input (startAgentSession), resume to the first model request, a full
// Session.open of the same file, and the bytes each read (rchar of /proc/self/io: every read
// syscall, page-cache hits included). Ratios across sizes are in one run; the last line is one JSON
// object. Targets (issues 41 and 42): first request at the largest size ≤ 1.2× at 10k, open CPU
// ≤ 1.5× 10k, 100k resume ready ≤ 1.5× Session.open of the same file.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Figures, generate, inChild } from './resume-session.js';

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main() {
  const sizes = [10_000, 100_000, ...(process.env.SPINE_BENCH_1M === '1' ? [1_000_000] : [])];
  const rounds = Number(process.env.SPINE_BENCH_ROUNDS ?? 3);
  // SPINE_BENCH_DIR keeps the generated sessions there (and reuses them on the next run).
  const kept = process.env.SPINE_BENCH_DIR;
  const root = kept ?? mkdtempSync(join(tmpdir(), 'spine-bench-resume-large-'));
  const sessionDir = join(root, 'sessions');
  const cwd = join(root, 'ws');
  mkdirSync(cwd, { recursive: true });
  const exists = (id: string) => existsSync(join(sessionDir, `${id}.jsonl`));
  try {
    if (!exists('warm')) await generate(sessionDir, 'warm', cwd, 2_000);
    const rows: Record<string, Record<string, number>> = {};
    for (const events of sizes) {
      const id = `s${events}`;
      const written = exists(id) ? events : await generate(sessionDir, id, cwd, events);
      // A full open is the baseline of the 100k target only (1M events held would need GBs).
      const samples: Record<string, Figures[]> = {
        'open-lazy': [],
        ...(events <= 100_000 ? { 'open-full': [] } : {}),
        ready: [],
        'first-request': [],
      };
      // Round by round, interleaved, so that a busy machine slows every figure alike.
      for (let round = 0; round < rounds; round++) {
        for (const mode of Object.keys(samples))
          samples[mode]?.push(inChild(mode, sessionDir, id, 'warm', cwd));
      }
      const of = (mode: string, key: keyof Figures) =>
        median((samples[mode] ?? []).map((f) => f[key]));
      rows[id] = {
        events: written,
        logBytes: statSync(join(sessionDir, `${id}.jsonl`)).size,
        snapshotBytes: statSync(join(sessionDir, `${id}.jsonl.snapshot`)).size,
        lazyOpenMs: of('open-lazy', 'ms'),
        lazyOpenCpuMs: of('open-lazy', 'cpuMs'),
        lazyOpenReadBytes: of('open-lazy', 'readBytes'),
        fullOpenMs: of('open-full', 'ms'),
        readyMs: of('ready', 'ms'),
        readyReadBytes: of('ready', 'readBytes'),
        firstRequestMs: of('first-request', 'firstRequestMs'),
        firstRequestReadBytes: of('first-request', 'readBytes'),
      };
      console.log(id, JSON.stringify(rows[id]));
    }
    const small = rows.s10000 as Record<string, number>;
    const largest = rows[`s${sizes.at(-1)}`] as Record<string, number>;
    const mid = rows.s100000 as Record<string, number>;
    const ratios = {
      firstRequestLargestTo10k:
        (largest.firstRequestMs as number) / (small.firstRequestMs as number),
      openCpuLargestTo10k: (largest.lazyOpenCpuMs as number) / (small.lazyOpenCpuMs as number),
      readyToFullOpen100k: (mid.readyMs as number) / (mid.fullOpenMs as number),
      readBytesLargestTo10k:
        (largest.firstRequestReadBytes as number) / (small.firstRequestReadBytes as number),
    };
    const pass =
      ratios.firstRequestLargestTo10k <= 1.2 &&
      ratios.openCpuLargestTo10k <= 1.5 &&
      ratios.readyToFullOpen100k <= 1.5;
    const round2 = (value: number) => Number(value.toFixed(2));
    console.log(
      JSON.stringify({
        bench: 'cli/resume-large',
        rows,
        ratios: Object.fromEntries(
          Object.entries(ratios).map(([key, value]) => [key, round2(value)]),
        ),
        targets: {
          firstRequestLargestTo10k: 1.2,
          openCpuLargestTo10k: 1.5,
          readyToFullOpen100k: 1.5,
        },
        pass,
      }),
    );
  } finally {
    if (!kept) rmSync(root, { recursive: true, force: true });
  }
}

await main();
