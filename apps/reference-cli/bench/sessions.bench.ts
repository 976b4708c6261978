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

const bin = join(dirname(dirname(fileURLToPath(import.meta.url))), 'bin', 'spine.js');
const SESSIONS = 1000;
const RUNS = 5;

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
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
  const cliSmall: number[] = [];
  const cliLarge: number[] = [];
  const inSmall: number[] = [];
  const inLarge: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    cliSmall.push(cli(small));
    cliLarge.push(cli(large));
    inSmall.push(await listing(small));
    inLarge.push(await listing(large));
    console.log(
      `run ${run + 1}: cli ${cliSmall.at(-1)!.toFixed(0)} / ${cliLarge.at(-1)!.toFixed(0)} ms, listing ${inSmall.at(-1)!.toFixed(1)} / ${inLarge.at(-1)!.toFixed(1)} ms`,
    );
  }
  const cliRatio = median(cliLarge) / median(cliSmall);
  const listingRatio = median(inLarge) / median(inSmall);
  console.log(
    `spine sessions: ${median(cliSmall).toFixed(0)} ms (10 events) vs ${median(cliLarge).toFixed(0)} ms (1,000 events): ratio ${cliRatio.toFixed(2)} (target ≤ 2)`,
  );
  console.log(
    `listing alone: ${median(inSmall).toFixed(1)} ms vs ${median(inLarge).toFixed(1)} ms: ratio ${listingRatio.toFixed(2)}`,
  );
  console.log(
    JSON.stringify({
      bench: 'cli/sessions',
      sessions: SESSIONS,
      cliSmallMs: Math.round(median(cliSmall)),
      cliLargeMs: Math.round(median(cliLarge)),
      cliRatio: Number(cliRatio.toFixed(2)),
      listingSmallMs: Number(median(inSmall).toFixed(1)),
      listingLargeMs: Number(median(inLarge).toFixed(1)),
      listingRatio: Number(listingRatio.toFixed(2)),
      target: 2,
      pass: cliRatio <= 2 && listingRatio <= 2,
    }),
  );
} finally {
  rmSync(small, { recursive: true, force: true });
  rmSync(large, { recursive: true, force: true });
}
