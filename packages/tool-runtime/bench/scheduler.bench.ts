// 8 concurrency-safe tools that each wait 200 ms, in one batch, against one such tool alone.
import type { ToolCallPart } from '@spine/protocol';
import { z } from 'zod';
import { createToolRuntime, defineTool } from '../src/index.js';

const WAIT_MS = 200;
const ROUNDS = 3;
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

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const one: number[] = [];
const eight: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  one.push(await timed(1));
  eight.push(await timed(8));
  console.log(
    `round ${round + 1}/${ROUNDS}: one ${one.at(-1)!.toFixed(1)} ms, eight ${eight.at(-1)!.toFixed(1)} ms`,
  );
}
const ratio = median(eight) / median(one);
console.log(
  JSON.stringify({
    bench: 'tool-runtime/scheduler',
    waitMs: WAIT_MS,
    oneMs: Number(median(one).toFixed(1)),
    eightMs: Number(median(eight).toFixed(1)),
    ratio: Number(ratio.toFixed(3)),
    target: 1.25,
    pass: ratio <= 1.25,
  }),
);
