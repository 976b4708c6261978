// `spine resume` of a 100k-event session against the session-log's own `Session.open` of the same
// file, each measured cold in a fresh process (resume-session.ts: the child warms up on a small
// session first, so module loading is excluded from every figure), with default settings
// (snapshots on, written by the session as it grew). Targets (issue 41): ready for input ≤ 1.5×
// the open, the first model request built ≤ 1.2× the open. "Ready" = session opened, tools,
// prompt, meter, compaction and agent wired, agent state restored from the log: what `spine
// resume` does before it reads input; the first request adds what that request needs (the tool
// runtime, the token count of the history, the request itself).
//
// The three run round by round, their order rotating each round, so a busy machine slows all
// alike; each round gives a ratio to that round's open. The figure is the median ratio with a
// distribution-free 90% interval, and a pass needs the interval's high end within the target
// (scripts/lib/bench-interleave.ts judges it).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { judge, median, printReport } from '../../../scripts/lib/bench-interleave.js';
import { type Figures, generate, inChild } from './resume-session.js';

const EVENTS = 100_000;
const ROUNDS = Number(process.env.SPINE_BENCH_ROUNDS ?? 7);
const TARGETS = { ready: 1.5, firstRequest: 1.2 };
// SPINE_BENCH_DIR keeps the generated sessions there (and reuses them on the next run).
const kept = process.env.SPINE_BENCH_DIR;
const root = kept ?? mkdtempSync(join(tmpdir(), 'spine-bench-resume-'));
const sessionDir = join(root, 'sessions');
const cwd = join(root, 'ws');
mkdirSync(cwd, { recursive: true });

try {
  const exists = (id: string) => existsSync(join(sessionDir, `${id}.jsonl`));
  if (!exists('warm')) await generate(sessionDir, 'warm', cwd, 2_000);
  console.log(`writing a session of ${EVENTS} events…`);
  const events = exists('big') ? EVENTS : await generate(sessionDir, 'big', cwd, EVENTS);
  const modes = ['open-full', 'ready', 'first-request'] as const;
  const samples: Record<(typeof modes)[number], Figures[]> = {
    'open-full': [],
    ready: [],
    'first-request': [],
  };
  const readyRatios: number[] = [];
  const firstRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < modes.length; i++) {
      const mode = modes[(round + i) % modes.length]!;
      samples[mode].push(inChild(mode, sessionDir, 'big', 'warm', cwd));
    }
    const open = samples['open-full'][round]!.ms;
    const ready = samples.ready[round]!.ms;
    const first = samples['first-request'][round]!.firstRequestMs;
    readyRatios.push(ready / open);
    firstRatios.push(first / open);
    console.log(
      `round ${round + 1}/${ROUNDS}: Session.open ${open.toFixed(0)} ms, resume ready ${ready.toFixed(0)} ms ` +
        `(${readyRatios[round]!.toFixed(2)}x), first request ${first.toFixed(0)} ms ` +
        `(${firstRatios[round]!.toFixed(2)}x) (load ${loadavg()[0]!.toFixed(1)})`,
    );
  }
  const ms = (values: number[]) => Math.round(median(values));
  printReport({
    bench: 'cli/resume',
    checks: [
      judge('resume ready ÷ Session.open', readyRatios, { atMost: TARGETS.ready }),
      judge('first request ÷ Session.open', firstRatios, { atMost: TARGETS.firstRequest }),
    ],
    figures: {
      events,
      rounds: ROUNDS,
      openMs: ms(samples['open-full'].map((f) => f.ms)),
      resumeReadyMs: ms(samples.ready.map((f) => f.ms)),
      firstRequestMs: ms(samples['first-request'].map((f) => f.firstRequestMs)),
      load: +loadavg()[0]!.toFixed(1),
    },
  });
} finally {
  if (!kept) rmSync(root, { recursive: true, force: true });
}
