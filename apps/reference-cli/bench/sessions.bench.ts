// `spine sessions` over 1,000 sessions of 1,000 events against 1,000 sessions of 10 events
// (target: ≤ 2×): listing reads headers only, so the size of each log must not matter.
// Measured end to end (a `spine sessions` process) and in-process (the listing alone).
//
// Why the in-process listing runs in slices: a listing is tens of ms, and beside another
// `npm test` on this 2-core machine a side waits for a core in bursts of tens to hundreds of ms.
// Run once per side per round, one burst landed on one side of a round and the 90% interval of a
// 1.06–1.38 median reached 2.19–2.75. So each round is now SLICES listings per side, the sides
// taking turns listing by listing (interleave's order alternates, s l l s s l …), and a side's
// round figure is the sum of its listings: a burst now falls on both sides of a round alike, and
// a round is ~SLICES× longer, so one burst is a smaller part of it. What is checked is unchanged:
// the same listing, timed the same way (wall), of the same two folders, per-round ratio ≤ 2 on
// its 90% interval; a listing that read whole logs would still take ~100× longer on the large
// side. The same ratio in process CPU time (user + system; waiting for a core does not count,
// reading a file does) is reported beside it, not judged: it shows whether a wide wall interval
// came from the machine or from the code.
// The `spine sessions` processes (~0.5–3 s each, so a burst is a small part of them) stay as
// they were: one per side per round, judged on their own.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSessionIndex } from '@spine/harness';
import { createJsonlStore } from '@spine/session-log';
import { perRound } from '../../../packages/session-log/bench/sliced-rounds.js';
import {
  cpuNow,
  interleave,
  judge,
  median,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';

const bin = join(dirname(dirname(fileURLToPath(import.meta.url))), 'bin', 'spine.js');
const SESSIONS = 1000;
// 21 interleaved rounds: with 9 the 90% interval ran from the 2nd to the 8th sorted ratio, and one
// busy moment took a 1.06 median's upper end to 2.19 beside npm test.
const RUNS = 21;
// Listings per side per round (see the header): ~0.5–2 s of listing per side per round.
const SLICES = 10;

function makeDir(events: number): string {
  const dir = mkdtempSync(join(tmpdir(), `spine-bench-sessions-${events}-`));
  mkdirSync(dir, { recursive: true });
  const at = '2026-11-30T09:00:00.000Z';
  for (let index = 0; index < SESSIONS; index++) {
    const id = `s${String(index).padStart(5, '0')}`;
    const header = {
      seq: 1,
      type: 'session/header',
      at,
      body: {
        formatVersion: 1,
        sessionId: id,
        createdAt: at,
        title: `task ${index}`,
        model: 'deepseek/deepseek-v4-flash',
      },
    };
    const lines = [JSON.stringify(header)];
    for (let seq = 2; seq <= events; seq++) {
      lines.push(
        JSON.stringify({
          seq,
          type: 'user/message',
          at,
          turn: 1,
          body: { content: `message ${seq} of session ${index}`, source: 'user' },
          surfaceOp: { op: 'append' },
        }),
      );
    }
    writeFileSync(join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`);
  }
  return dir;
}

function cli(dir: string): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, [bin, 'sessions', '--session-dir', dir], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`spine sessions failed: ${result.stderr}`);
  return performance.now() - start;
}

/** One listing: the store's list and every session's index entry, as `spine sessions` reads them. */
async function listing(dir: string, cpu: number[]): Promise<number> {
  const cpuStart = cpuNow();
  const start = performance.now();
  const summaries = await createJsonlStore({ dir }).list();
  for (const summary of summaries) readSessionIndex(dir, summary.id);
  const ms = performance.now() - start;
  cpu.push(cpuNow() - cpuStart);
  if (summaries.length !== SESSIONS) throw new Error(`listed ${summaries.length} sessions`);
  return ms;
}

console.log(`writing ${SESSIONS} sessions of 10 and of 1,000 events…`);
const small = makeDir(10);
const large = makeDir(1000);
try {
  cli(small);
  cli(large);
  // The processes: interleaved round by round, the order alternating (scripts/lib/bench-interleave.ts).
  const processes = await interleave({
    sides: { cliSmall: () => cli(small), cliLarge: () => cli(large) },
    rounds: RUNS,
    gc: false,
    onRound: (round, times) =>
      console.log(
        `run ${round + 1}: cli ${times.cliSmall.toFixed(0)} / ${times.cliLarge.toFixed(0)} ms`,
      ),
  });
  // The listing: RUNS rounds of SLICES turns per side (see the header), one warm-up round.
  const cpu = { small: [] as number[], large: [] as number[] };
  const turns = await interleave({
    sides: { inSmall: () => listing(small, cpu.small), inLarge: () => listing(large, cpu.large) },
    rounds: RUNS * SLICES,
    warmup: SLICES,
    gc: false,
  });
  const warm = SLICES; // CPU times of the warm-up turns, dropped like their wall times
  const rounds = {
    inSmall: perRound(turns.inSmall, SLICES, RUNS),
    inLarge: perRound(turns.inLarge, SLICES, RUNS),
  };
  const cpuRounds = {
    small: perRound(cpu.small.slice(warm), SLICES, RUNS),
    large: perRound(cpu.large.slice(warm), SLICES, RUNS),
  };
  for (let round = 0; round < RUNS; round++) {
    const wall = `${rounds.inSmall[round]?.toFixed(0)} / ${rounds.inLarge[round]?.toFixed(0)} ms wall`;
    const used = `${cpuRounds.small[round]?.toFixed(0)} / ${cpuRounds.large[round]?.toFixed(0)} ms cpu`;
    console.log(`listing round ${round + 1}: ${wall}, ${used} (${SLICES} listings each)`);
  }
  const cliCheck = ratioCheck(
    processes,
    'cliLarge',
    'cliSmall',
    { atMost: 2 },
    { name: 'spine sessions 1,000 ÷ 10 events' },
  );
  const listingCheck = ratioCheck(
    rounds,
    'inLarge',
    'inSmall',
    { atMost: 2 },
    { name: 'listing 1,000 ÷ 10 events' },
  );
  const cpuRatio = judge(
    'listing 1,000 ÷ 10 events, CPU time',
    cpuRounds.large.map((ms, round) => ms / (cpuRounds.small[round] ?? Number.NaN)),
    { atMost: 2 },
  );
  const ms = medianTimes(processes);
  const perListing = (values: number[]) => Number((median(values) / SLICES).toFixed(1));
  printReport({
    bench: 'cli/sessions',
    checks: [cliCheck, listingCheck],
    figures: {
      sessions: SESSIONS,
      cliSmallMs: Math.round(ms.cliSmall),
      cliLargeMs: Math.round(ms.cliLarge),
      cliRatio: cliCheck.figure,
      cliRatio90: cliCheck.interval,
      listingsPerRound: SLICES,
      listingSmallMs: perListing(rounds.inSmall),
      listingLargeMs: perListing(rounds.inLarge),
      listingRatio: listingCheck.figure,
      listingRatio90: listingCheck.interval,
      listingCpuSmallMs: perListing(cpuRounds.small),
      listingCpuLargeMs: perListing(cpuRounds.large),
      listingCpuRatio: cpuRatio.figure,
      listingCpuRatio90: cpuRatio.interval,
      target: 2,
    },
  });
} finally {
  rmSync(small, { recursive: true, force: true });
  rmSync(large, { recursive: true, force: true });
}
