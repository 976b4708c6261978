// Building the deterministic part of a checkpoint for a 2,000-event region holding 500 KB of tool
// output: today's buildDeterministicCheckpoint against the implementation before issue 23
// (bench/legacy-checkpoint.ts), measured in the same run on the same session.
// Target: today's ≤ 2 × the old one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionLog } from '@spine/protocol';
import {
  cpuNow,
  interleave,
  median,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { buildDeterministicCheckpoint, surfaceEventsOf } from '../src/checkpoint.js';
import { validateSurfaceRegion } from '../src/region.js';
import { filler, newSession, reply, say, toolStep } from '../test/history.js';
import { legacyExtractFacts, legacyRenderFacts } from './legacy-checkpoint.js';

const EVENTS = 2000;
const OUTPUT_BYTES = 500 * 1024;
const RUNS = 21;
const BATCH = 5;

const fixtures = join(import.meta.dirname, '..', 'test', 'fixtures', 'outputs');
const failures = readdirSync(fixtures)
  .filter((name) => name.endsWith('.txt'))
  .sort()
  .map((name) => readFileSync(join(fixtures, name), 'utf8'));

/** A session of `EVENTS` surface events: turns of requests, model talk and tool steps. */
async function buildSession(): Promise<{ session: SessionLog; outputBytes: number }> {
  const session = await newSession();
  let outputBytes = 0;
  let step = 0;
  let turn = 0;
  const steps = Math.floor(EVENTS / 2.2);
  const perOutput = Math.ceil(OUTPUT_BYTES / steps);
  while (session.surface().length < EVENTS - 2) {
    step++;
    if (step % 40 === 1) {
      turn++;
      say(
        session,
        `Turn ${turn}: continue the ledger work. The test env needs LEDGER_URL set; skip the DB tests if it is empty. Never touch vendor/.`,
        { turn },
      );
    }
    if (step % 10 === 5) {
      reply(
        session,
        `Looked at module ${step}.\nNext step: wire the retry into sync${step}()\nThe rest is fine.`,
        { turn, step },
      );
      continue;
    }
    const failing = step % 9 === 0;
    const base = failing ? (failures[step % failures.length] as string) : '';
    const output = `${filler(Math.max(10, Math.floor((perOutput - base.length) / 6.5)), step)}\n${base}`;
    outputBytes += Buffer.byteLength(output);
    const call =
      step % 3 === 0
        ? {
            id: `c${step}`,
            name: 'bash',
            args: { command: `npm test -- src/m${step % 17}.test.ts` },
          }
        : step % 3 === 1
          ? { id: `c${step}`, name: 'read_file', args: { path: `src/m${step}.ts` } }
          : { id: `c${step}`, name: 'edit', args: { path: `src/m${step % 23}.ts` } };
    toolStep(session, call, output, {
      turn,
      step,
      ...(call.name === 'bash' ? { exitCode: failing ? 1 : 0 } : {}),
      ...(failing && call.name !== 'bash' ? { isError: true } : {}),
    });
  }
  return { session, outputBytes };
}

async function main(): Promise<void> {
  const { session, outputBytes } = await buildSession();
  const surface = session.surface();
  const region = { start: surface[0] as number, end: surface[surface.length - 1] as number };
  const legacy = (): string => {
    const events = surfaceEventsOf(session);
    const check = validateSurfaceRegion(events, region);
    if (!check.ok) throw new Error(check.reason);
    return legacyRenderFacts(
      legacyExtractFacts(events.slice(check.startIndex, check.endIndex + 1)),
    );
  };
  const today = (): string => buildDeterministicCheckpoint(session, region).text;
  const wall = { legacy: [] as number[], today: [] as number[] };
  let recordChars = 0;
  // Interleaved samples of BATCH builds each (scripts/lib/bench-interleave.ts), so warm-up, GC and
  // machine load fall on both alike; the first two samples are warm-up. CPU time is compared (wall
  // time is reported): the figure is the median of the per-round CPU ratios, judged on its 90%
  // interval.
  const side = (name: 'legacy' | 'today', build: () => string) => (): number => {
    const startCpu = cpuNow();
    const startWall = performance.now();
    for (let index = 0; index < BATCH; index++) recordChars = build().length;
    wall[name].push((performance.now() - startWall) / BATCH);
    return (cpuNow() - startCpu) / BATCH;
  };
  const samples = await interleave({
    sides: { legacy: side('legacy', legacy), today: side('today', today) },
    rounds: RUNS,
    warmup: 2,
    gc: false,
  });
  const check = ratioCheck(
    samples,
    'today',
    'legacy',
    { atMost: 2 },
    { name: 'today ÷ before issue 23 (CPU)' },
  );
  const cpu = medianTimes(samples);
  const wallMs = (name: 'legacy' | 'today'): number => median(wall[name].slice(2));
  console.log(
    `region of ${surface.length} events, ${(outputBytes / 1024).toFixed(0)} KB of tool output; today's record ${recordChars} chars`,
  );
  console.log(
    `before issue 23: ${cpu.legacy} ms CPU per build (median of ${RUNS} × ${BATCH}; wall ${wallMs('legacy').toFixed(2)} ms)`,
  );
  console.log(`today: ${cpu.today} ms CPU per build (wall ${wallMs('today').toFixed(2)} ms)`);
  printReport({
    bench: 'compaction/checkpoint-build',
    checks: [check],
    figures: {
      events: surface.length,
      outputKB: Math.round(outputBytes / 1024),
      legacyCpuMs: cpu.legacy,
      todayCpuMs: cpu.today,
      legacyWallMs: Number(wallMs('legacy').toFixed(3)),
      todayWallMs: Number(wallMs('today').toFixed(3)),
      ratio: check.figure,
      ratio90: check.interval,
    },
  });
}

await main();
