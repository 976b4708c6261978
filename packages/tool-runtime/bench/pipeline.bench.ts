// 1,000 no-op calls through the full pipeline (parse, validation, hooks, approval, ordered commit)
// against the baseline: JSON.parse + ajv validate (the runtime's ajv options) + calling the function
// directly.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type {
  ToolCallPart,
  ToolExecutionContext,
  ToolResultBody,
  ToolRunEvent,
} from '@spine/protocol';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { createToolRuntime, defineTool } from '../src/index.js';

const CALLS = 1000;
const ROUNDS = 300;
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
async function baseline(): Promise<number> {
  const started = performance.now();
  const out: string[] = [];
  for (const call of calls) {
    const args = JSON.parse(call.arguments) as { value: number; label: string };
    if (!validate(args)) throw new Error('invalid');
    out.push((await noop.execute(args, context)).content);
  }
  if (out.length !== CALLS) throw new Error('lost calls');
  return performance.now() - started;
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
  const started = performance.now();
  const results: ToolResultBody[] = await runtime.run(calls, {
    onEvent: (event) => events.push(event),
  });
  const elapsed = performance.now() - started;
  if (results.length !== CALLS || results.some((result) => result.isError))
    throw new Error('pipeline failed');
  return elapsed;
}

// Collect garbage before each timed round (both sides alike), so a scavenge that a busy shared
// machine stretches to tens of ms does not land inside one side's window by chance.
setFlagsFromString('--expose-gc');
const collect = (globalThis.gc ?? runInNewContext('gc')) as () => void;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const base: number[] = [];
const full: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  collect();
  base.push(await baseline());
  collect();
  full.push(await pipeline());
  if ((round + 1) % 50 === 0)
    console.log(
      `round ${round + 1}/${ROUNDS}: baseline ${base.at(-1)!.toFixed(2)} ms, pipeline ${full.at(-1)!.toFixed(2)} ms`,
    );
}
// The first rounds warm up the JIT. The pass figure is the MEDIAN warm round of each side: a full
// GC runs before every round, as between the batches of a real session, so the median shows what a
// typical batch costs after one (an earlier version deoptimised the whole pipeline after every full
// GC: the median was 5x the best round). The fastest warm round is reported beside it.
const warmBase = base.slice(ROUNDS >> 2);
const warmFull = full.slice(ROUNDS >> 2);
const baseMs = Math.min(...warmBase);
const fullMs = Math.min(...warmFull);
const ratio = fullMs / baseMs;
const medianBaseMs = median(warmBase);
const medianFullMs = median(warmFull);
const medianRatio = medianFullMs / medianBaseMs;
console.log(
  `median: baseline ${((medianBaseMs / CALLS) * 1000).toFixed(2)} us/call, pipeline ${((medianFullMs / CALLS) * 1000).toFixed(2)} us/call, ${medianRatio.toFixed(2)}x; best: ${ratio.toFixed(2)}x`,
);
console.log(
  JSON.stringify({
    bench: 'tool-runtime/pipeline',
    calls: CALLS,
    rounds: ROUNDS,
    baselineMs: Number(baseMs.toFixed(3)),
    pipelineMs: Number(fullMs.toFixed(3)),
    perCallBaselineUs: Number(((baseMs / CALLS) * 1000).toFixed(2)),
    perCallPipelineUs: Number(((fullMs / CALLS) * 1000).toFixed(2)),
    perCallOverheadUs: Number((((fullMs - baseMs) / CALLS) * 1000).toFixed(2)),
    ratio: Number(ratio.toFixed(2)),
    medianBaselineMs: Number(medianBaseMs.toFixed(3)),
    medianPipelineMs: Number(medianFullMs.toFixed(3)),
    medianPerCallBaselineUs: Number(((medianBaseMs / CALLS) * 1000).toFixed(2)),
    medianPerCallPipelineUs: Number(((medianFullMs / CALLS) * 1000).toFixed(2)),
    medianPerCallOverheadUs: Number((((medianFullMs - medianBaseMs) / CALLS) * 1000).toFixed(2)),
    medianRatio: Number(medianRatio.toFixed(2)),
    target: 3,
    pass: medianRatio <= 3,
  }),
);
