// 8 concurrency-safe tools that each wait 200 ms, in one batch, against one such tool alone.
import type { ToolCallPart } from '@spine/protocol';
import { z } from 'zod';
import {
  interleave,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { createToolRuntime, defineTool } from '../src/index.js';

const WAIT_MS = 200;
const ROUNDS = 15;
const wait = defineTool({
  name: 'wait',
  description: 'waits',
  parameters: z.object({ ms: z.number() }),
  isConcurrencySafe: true,
  execute: ({ ms }, context) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ content: `waited ${ms} ms` }), ms);
      context.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }),
});
const runtime = createToolRuntime({
  cwd: process.cwd(),
  tools: [wait],
  approval: 'never-ask',
  sandboxBackend: null,
});
const calls = (count: number): ToolCallPart[] =>
  Array.from({ length: count }, (_, i) => ({
    type: 'tool-call',
    id: `w${i}`,
    name: 'wait',
    arguments: JSON.stringify({ ms: WAIT_MS }),
  }));

async function timed(count: number): Promise<number> {
  const started = performance.now();
  const results = await runtime.run(calls(count), { onEvent: () => undefined });
  if (results.some((result) => result.isError)) throw new Error('a wait failed');
  return performance.now() - started;
}

// Interleaved round by round (scripts/lib/bench-interleave.ts): the figure is the median of the
// per-round ratios eight ÷ one, judged on its 90% interval.
const samples = await interleave({
  sides: { one: () => timed(1), eight: () => timed(8) },
  rounds: ROUNDS,
  warmup: 1,
  gc: false,
  onRound: (round, times) =>
    console.log(
      `round ${round + 1}/${ROUNDS}: one ${times.one.toFixed(1)} ms, eight ${times.eight.toFixed(1)} ms`,
    ),
});
const check = ratioCheck(samples, 'eight', 'one', { atMost: 1.25 });
const ms = medianTimes(samples);
printReport({
  bench: 'tool-runtime/scheduler',
  checks: [check],
  figures: {
    waitMs: WAIT_MS,
    oneMs: ms.one,
    eightMs: ms.eight,
    ratio: check.figure,
    ratio90: check.interval,
    target: 1.25,
  },
});
