// `spine sessions` over 1,000 sessions of 1,000 events against 1,000 sessions of 10 events
// (target: ≤ 2×): listing reads headers only, so the size of each log must not matter.
// Measured end to end (a `spine sessions` process) and in-process (the listing alone).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSessionIndex } from '@spine/harness';
import { createJsonlStore } from '@spine/session-log';
import {
  interleave,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';

const bin = join(dirname(dirname(fileURLToPath(import.meta.url))), 'bin', 'spine.js');
const SESSIONS = 1000;
// 21 interleaved rounds: with 9 the 90% interval ran from the 2nd to the 8th sorted ratio, and one
// busy moment took a 1.06 median's upper end to 2.19 beside npm test.
const RUNS = 21;

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

async function listing(dir: string): Promise<number> {
  const start = performance.now();
  const summaries = await createJsonlStore({ dir }).list();
  for (const summary of summaries) readSessionIndex(dir, summary.id);
  if (summaries.length !== SESSIONS) throw new Error(`listed ${summaries.length} sessions`);
  return performance.now() - start;
}

console.log(`writing ${SESSIONS} sessions of 10 and of 1,000 events…`);
const small = makeDir(10);
const large = makeDir(1000);
try {
  cli(small);
  cli(large);
  // Interleaved round by round, the order rotating (scripts/lib/bench-interleave.ts); each ratio
  // is the median of the per-round ratios, judged on its 90% interval.
  const samples = await interleave({
    sides: {
      cliSmall: () => cli(small),
      cliLarge: () => cli(large),
      inSmall: () => listing(small),
      inLarge: () => listing(large),
    },
    rounds: RUNS,
    gc: false,
    onRound: (round, times) =>
      console.log(
        `run ${round + 1}: cli ${times.cliSmall.toFixed(0)} / ${times.cliLarge.toFixed(0)} ms, listing ${times.inSmall.toFixed(1)} / ${times.inLarge.toFixed(1)} ms`,
      ),
  });
  const cliCheck = ratioCheck(
    samples,
    'cliLarge',
    'cliSmall',
    { atMost: 2 },
    { name: 'spine sessions 1,000 ÷ 10 events' },
  );
  const listingCheck = ratioCheck(
    samples,
    'inLarge',
    'inSmall',
    { atMost: 2 },
    { name: 'listing 1,000 ÷ 10 events' },
  );
  const ms = medianTimes(samples);
  printReport({
    bench: 'cli/sessions',
    checks: [cliCheck, listingCheck],
    figures: {
      sessions: SESSIONS,
      cliSmallMs: Math.round(ms.cliSmall),
      cliLargeMs: Math.round(ms.cliLarge),
      cliRatio: cliCheck.figure,
      cliRatio90: cliCheck.interval,
      listingSmallMs: Number(ms.inSmall.toFixed(1)),
      listingLargeMs: Number(ms.inLarge.toFixed(1)),
      listingRatio: listingCheck.figure,
      listingRatio90: listingCheck.interval,
      target: 2,
    },
  });
} finally {
  rmSync(small, { recursive: true, force: true });
  rmSync(large, { recursive: true, force: true });
}
