// Recording overhead of spineRecorder per model call, at 10, 100 and 1,000 prompt messages.
// Targets (issue 40): ≤ 0.5 ms of CPU per call at 100 messages, and flat with history length:
// the overhead at 1,000 messages at most 3× the overhead at 100 (judged on the ratio, not on an
// absolute figure at 1,000).
//
// Each call's prompt shares all but its last two messages with the call before (as in an agent
// loop, where the SDK builds fresh message objects each step around the same strings) and is
// built before the clock starts. The model answers at once, so a call through the middleware
// minus a direct call is what recording costs: checking the shared prefix, converting and hashing
// the two new messages, the request hash, two JSONL appends (fsync 'never': the store's
// grouped writes are included, the disk's sync is not).
//
// Why 3× and not 1×: the SDK hands over fresh objects, so an exact recorder must read each shared
// message once per call to know it is unchanged (no text is copied or hashed again; see
// src/internal/message-tape.ts). That read is the one part that grows with history, and 3×
// lets tenfold history at most triple the cost. Measured with this bench on the shared 2-core
// machine (load 7–9): a recorder reduced to a bare read of the prefix (no comparison at all, so
// unsound) gives 1.5–1.9 with intervals reaching 2.1, so ≤ 2 would fail even that; this
// recorder 2.1–2.8 (interval tops 2.3–3.0); the node-by-node comparison against the stored JSON
// that it replaced 3.2–4.1 (interval tops 3.5–4.5).
//
// Method: every round makes CALLS calls at each size, the sizes taking turns call by call (their
// order alternating), timing each call direct and through the middleware back to back in process
// CPU time. A round gives each size's mean overhead per call and the ratio 1,000 ÷ 100 of the
// same round; each check is the median over rounds with its 90% interval
// (scripts/lib/bench-interleave.ts), and passes when the whole interval meets the target.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlStore, Session } from '@spine/session-log';
import type { LanguageModelMiddleware } from 'ai';
import {
  cpuNow,
  judge,
  median,
  printReport,
  roundOrder,
} from '../../../scripts/lib/bench-interleave.js';
import { AI_SDK_EVENT_TYPES, spineRecorder } from '../src/index.js';

type Wrap = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type Options = Parameters<Wrap>[0];
type Result = Awaited<ReturnType<Options['doGenerate']>>;

const CALLS = 200;
const ROUNDS = 31;
const SIZES = [10, 100, 1000] as const;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-ai-sdk-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const text = (i: number): string => `message ${i} `.padEnd(400, 'lorem ipsum dolor sit amet ');
const strings = Array.from({ length: 2000 + CALLS * 2 }, (_, i) => text(i));

/** Message i of a conversation (the same strings every time, fresh objects). */
function message(i: number): unknown {
  const content = strings[i] as string;
  if (i % 4 === 1) return { role: 'assistant', content: [{ type: 'text', text: content }] };
  if (i % 4 === 2)
    return {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: `c${i}`,
          toolName: 'read',
          input: { path: `src/f${i}.ts` },
        },
      ],
    };
  if (i % 4 === 3)
    return {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${i - 1}`,
          toolName: 'read',
          output: { type: 'text', value: content },
        },
      ],
    };
  return { role: 'user', content: [{ type: 'text', text: content }], providerOptions: undefined };
}

const result: Result = {
  content: [{ type: 'text', text: 'ok' }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  },
  warnings: [],
} as unknown as Result;
const model = {
  provider: 'bench',
  modelId: 'bench-model',
  specificationVersion: 'v3',
} as unknown as Options['model'];
const doGenerate = async (): Promise<Result> => result;
const doStream = async () => {
  throw new Error('not used');
};

/** The prompt of call k at `size` messages: a shared prefix of size-2 and two new messages. */
function prompt(size: number, k: number): Options['params'] {
  return {
    prompt: [
      { role: 'system', content: 'You are a careful agent.' },
      ...Array.from({ length: size - 3 }, (_, i) => message(i)),
      message(2000 + k * 2),
      message(2000 + k * 2 + 1),
    ],
    temperature: 0,
    tools: [
      {
        type: 'function',
        name: 'read',
        description: 'Read a file',
        inputSchema: { type: 'object' },
      },
    ],
  } as unknown as Options['params'];
}

type Size = (typeof SIZES)[number];
type Wrapped = (params: Options['params']) => PromiseLike<unknown>;

/**
 * Per-call means of one round at one size: wall and CPU, direct and through the middleware, and
 * the CPU time of building the prompt (for scale: the SDK does at least that much each step).
 */
interface Figures {
  direct: number;
  recorded: number;
  directCpu: number;
  recordedCpu: number;
  buildCpu: number;
}

/** A fresh session and recorder, primed with call 0's prompt. */
async function subject(size: Size): Promise<{ call: Wrapped; close: () => Promise<void> }> {
  const session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'never' }),
    eventTypes: AI_SDK_EVENT_TYPES,
    snapshots: false,
  });
  const wrap = spineRecorder({ session }).wrapGenerate as Wrap;
  const call: Wrapped = (params) => wrap({ doGenerate, doStream, params, model });
  await call(prompt(size, 0)); // primes the prefix
  return { call, close: () => session.close() };
}

/**
 * One round: CALLS calls at every size, the sizes taking turns call by call (their order
 * alternating, as roundOrder gives it), so a burst of load on the machine falls on all sizes
 * alike and the round's ratio 1,000 ÷ 100 holds still.
 */
async function round(): Promise<Record<Size, Figures>> {
  const subjects = new Map<Size, Awaited<ReturnType<typeof subject>>>();
  for (const size of SIZES) subjects.set(size, await subject(size));
  const totals = new Map<Size, Figures>(
    SIZES.map((size) => [
      size,
      { direct: 0, recorded: 0, directCpu: 0, recordedCpu: 0, buildCpu: 0 },
    ]),
  );
  for (let k = 1; k <= CALLS; k++) {
    for (const size of roundOrder(SIZES, k)) {
      const call = subjects.get(size)?.call as Wrapped;
      const sums = totals.get(size) as Figures;
      // Each prompt is built just before its call (outside the clock), so the heap holds one
      // per size at a time.
      let startCpu = cpuNow();
      const params = prompt(size, k);
      sums.buildCpu += cpuNow() - startCpu;
      let start = performance.now();
      startCpu = cpuNow();
      await doGenerate();
      sums.direct += performance.now() - start;
      sums.directCpu += cpuNow() - startCpu;
      start = performance.now();
      startCpu = cpuNow();
      await call(params);
      sums.recorded += performance.now() - start;
      sums.recordedCpu += cpuNow() - startCpu;
    }
  }
  for (const { close } of subjects.values()) await close();
  const figures = {} as Record<Size, Figures>;
  for (const [size, sums] of totals)
    figures[size] = {
      direct: sums.direct / CALLS,
      recorded: sums.recorded / CALLS,
      directCpu: sums.directCpu / CALLS,
      recordedCpu: sums.recordedCpu / CALLS,
      buildCpu: sums.buildCpu / CALLS,
    };
  return figures;
}

const gc = (globalThis as { gc?: () => void }).gc;
await round(); // warm-up
const wall: Record<Size, number[]> = { 10: [], 100: [], 1000: [] };
const cpu: Record<Size, number[]> = { 10: [], 100: [], 1000: [] };
const build: Record<Size, number[]> = { 10: [], 100: [], 1000: [] };
for (let r = 0; r < ROUNDS; r++) {
  gc?.();
  const figures = await round();
  for (const size of SIZES) {
    wall[size].push(figures[size].recorded - figures[size].direct);
    cpu[size].push(figures[size].recordedCpu - figures[size].directCpu);
    build[size].push(figures[size].buildCpu);
  }
}

const figure = (values: number[]): number => Number(median(values).toFixed(4));
const overheadMs: Record<string, number> = {};
const overheadCpuMs: Record<string, number> = {};
const promptBuildCpuMs: Record<string, number> = {};
for (const size of SIZES) {
  overheadMs[size] = figure(wall[size]);
  overheadCpuMs[size] = figure(cpu[size]);
  promptBuildCpuMs[size] = figure(build[size]);
  console.log(
    `${size} messages: ${overheadMs[size]} ms wall, ${overheadCpuMs[size]} ms CPU per call; building the prompt ${promptBuildCpuMs[size]} ms CPU (medians of ${ROUNDS} rounds of ${CALLS} calls)`,
  );
}
// Judged on CPU time (the machine is shared; wall time moves with other processes' load).
const flatness = cpu[1000].map((value, r) => value / (cpu[100][r] as number));
printReport({
  bench: 'ai-sdk/record',
  checks: [
    judge('CPU ms per call, 100 messages', cpu[100], { atMost: 0.5 }),
    judge('CPU per call 1,000 ÷ 100 messages', flatness, { atMost: 3 }),
  ],
  figures: { overheadMs, overheadCpuMs, promptBuildCpuMs },
});
