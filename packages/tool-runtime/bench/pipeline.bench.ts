// 1,000 no-op calls through the full pipeline (parse, validation, hooks, approval, ordered commit)
// against the baseline: JSON.parse + ajv validate (the runtime's ajv options) + calling the function
// directly.

import type {
  ToolCallPart,
  ToolExecutionContext,
  ToolResultBody,
  ToolRunEvent,
} from '@spine/protocol';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import {
  cpuNow,
  interleave,
  judge,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { createToolRuntime, defineTool } from '../src/index.js';

const CALLS = 1000;
const ROUNDS = 200;
const WARMUP = 75;
const noop = defineTool({
  name: 'noop',
  description: 'does nothing',
  parameters: z.object({ value: z.number(), label: z.string() }),
  isConcurrencySafe: true,
  execute: async (args) => ({ content: String(args.value) }),
});
const calls: ToolCallPart[] = Array.from({ length: CALLS }, (_, i) => ({
  type: 'tool-call',
  id: `call_${i}`,
  name: 'noop',
  arguments: JSON.stringify({ value: i, label: 'x' }),
}));

const validate = new Ajv2020({ allErrors: true, strict: false, useDefaults: true }).compile(
  noop.spec.parameters,
);
const context: ToolExecutionContext = {
  callId: 'c',
  signal: new AbortController().signal,
  cwd: process.cwd(),
  sandbox: 'workspace-write',
};
// CPU time of each side too (this process, all threads), reported beside the judged wall-time
// ratio: where the two part on a busy machine, the wall time waited for something off the CPU.
const cpu = { baseline: [] as number[], pipeline: [] as number[] };
async function baseline(): Promise<number> {
  const cpuStarted = cpuNow();
  const started = performance.now();
  const out: string[] = [];
  for (const call of calls) {
    const args = JSON.parse(call.arguments) as { value: number; label: string };
    if (!validate(args)) throw new Error('invalid');
    out.push((await noop.execute(args, context)).content);
  }
  const elapsed = performance.now() - started;
  cpu.baseline.push(cpuNow() - cpuStarted);
  if (out.length !== CALLS) throw new Error('lost calls');
  return elapsed;
}

const runtime = createToolRuntime({
  cwd: process.cwd(),
  tools: [noop],
  approval: 'never-ask',
  sandboxBackend: null,
  hooks: { preExecute: [() => undefined], postExecute: [() => undefined] },
  maxConcurrency: 16,
});
async function pipeline(): Promise<number> {
  const events: ToolRunEvent[] = [];
  const cpuStarted = cpuNow();
  const started = performance.now();
  const results: ToolResultBody[] = await runtime.run(calls, {
    onEvent: (event) => events.push(event),
  });
  const elapsed = performance.now() - started;
  cpu.pipeline.push(cpuNow() - cpuStarted);
  if (results.length !== CALLS || results.some((result) => result.isError))
    throw new Error('pipeline failed');
  return elapsed;
}

// Interleaved round by round in one process (scripts/lib/bench-interleave.ts), a full GC before
// every timed batch on both sides, as between the batches of a real session: the figure is the
// median of the per-round ratios, judged on its 90% interval, so a busy machine slows both alike.
// (An earlier version deoptimised the whole pipeline after every full GC: the median was 5x the
// best round; the GC before each round keeps that visible.)
const samples = await interleave({
  sides: { baseline, pipeline },
  rounds: ROUNDS,
  warmup: WARMUP,
  onRound: (round, times) => {
    if ((round + 1) % 50 === 0)
      console.log(
        `round ${round + 1}/${ROUNDS}: baseline ${times.baseline.toFixed(2)} ms, pipeline ${times.pipeline.toFixed(2)} ms`,
      );
  },
});
const check = ratioCheck(samples, 'pipeline', 'baseline', { atMost: 3 });
const cpuRatio = judge(
  'CPU time pipeline ÷ baseline',
  cpu.pipeline.slice(WARMUP).map((time, round) => time / cpu.baseline[WARMUP + round]!),
  { atLeast: 0 },
);
const ms = medianTimes(samples);
const perCallUs = (value: number) => Number(((value / CALLS) * 1000).toFixed(2));
printReport({
  bench: 'tool-runtime/pipeline',
  checks: [check],
  figures: {
    calls: CALLS,
    rounds: ROUNDS,
    medianBaselineMs: ms.baseline,
    medianPipelineMs: ms.pipeline,
    medianPerCallBaselineUs: perCallUs(ms.baseline),
    medianPerCallPipelineUs: perCallUs(ms.pipeline),
    medianPerCallOverheadUs: perCallUs(ms.pipeline - ms.baseline),
    medianRatio: check.figure,
    interval90: check.interval,
    medianCpuRatio: cpuRatio.figure,
    cpuRatio90: cpuRatio.interval,
    bestRatio: Number((Math.min(...samples.pipeline) / Math.min(...samples.baseline)).toFixed(2)),
    target: 3,
  },
});
