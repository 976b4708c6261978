// Harness overhead of one agent step against a loopback model server, versus a raw undici POST
// of the identical, already-serialised body with the response stream read to the end.
// Issue targets: ≤ 1.1× at 10,000 ~1 KB messages, ≤ 1.3× at 100, own time at 10k ≤ 3× at 100.
// Also timed in the same rounds: the model client alone streaming the identical request, which
// separates what the agent adds (request building, logging) from the client's own cost.
// Method: every round times step, client alone and raw POST back to back on one keep-alive
// pool; figures are medians over rounds (ratios are medians of the per-round ratios). The code
// is warmed on a separate session first, and no GC is forced between operations (see measure).
// The JSONL store (fsync 'never', as in the loopback setting) writes appended events in
// groups, encoding them when a group is written, and writes the group before every request is
// sent (`request/context` is a write-ahead type: the log holds each request a provider saw even
// if the process is killed mid-stream). So every step pays for encoding its own events and the
// previous step's, which medians used to leave out when only the 20 ms timer wrote them.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatibleModel } from '@spine/llm';
import type { ModelClient, ModelRequest } from '@spine/protocol';
import { createJsonlStore, createMemoryStore, Session } from '@spine/session-log';
import { createToolRuntime } from '@spine/tool-runtime';
import { request } from 'undici';
import { cpuNow, judge, printReport } from '../../../scripts/lib/bench-interleave.js';
import { agentLoopProjections, createAgent, SystemPrompt } from '../src/index.js';

const REPLY = [
  'data: {"id":"b","object":"chat.completion.chunk","model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}\n\n',
  'data: {"id":"b","object":"chat.completion.chunk","model":"deepseek-v4-flash","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":10}}\n\n',
  'data: [DONE]\n\n',
].join('');

/** A minimal OpenAI-compatible server: reads the whole body, answers a fixed two-chunk stream. */
async function startServer(): Promise<{
  url: string;
  lastBody: () => string;
  close: () => Promise<void>;
}> {
  let last = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      last = Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(REPLY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    lastBody: () => last,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function filler(seed: number): string {
  const words = [
    'agent',
    'session',
    'surface',
    'replay',
    'request',
    'token',
    'prefix',
    'cache',
    'tool',
    'step',
  ];
  let text = '';
  for (let i = 0; text.length < 1000; i++)
    text += `${words[(seed + i * 7) % words.length]}${(seed * 13 + i) % 101} `;
  return text;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

interface Measured {
  step: number;
  raw: number;
  /** Median over rounds of step / raw, each pair measured back to back. */
  ratio: number;
  /** The per-round ratios step / raw. */
  ratios: number[];
  /**
   * The per-round ratios of the same in process CPU time (agent, client and the in-process
   * server alike): where the wall ratio rises on a busy machine and this one does not, the step
   * waited longer for a core, it did not do more work.
   */
  cpuRatios: number[];
  /** Median over rounds of step − raw. */
  own: number;
  /** Median time of the model client alone streaming the same request. */
  client: number;
  /** Median of step − client-alone: what the agent adds around the model call. */
  harnessOwn: number;
  /** Median time from step/start to request/context (the agent's own request building). */
  build: number;
  bytes: number;
}

/**
 * One agent over a session of `messages` ~1 KB messages, its client and a loopback server. The
 * session is in the JSONL store (the CLI's), or in memory to tell the log's cost from the rest.
 */
async function setup(messages: number, store: 'jsonl' | 'memory' = 'jsonl') {
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'spine-bench-'));
  const session = await Session.create({
    store:
      store === 'memory'
        ? createMemoryStore()
        : createJsonlStore({
            dir,
            fsync: 'never',
            // SPINE_BENCH_CHAIN=off (scripts/bench-compare.mjs --env) measures without the chain.
            ...(process.env.SPINE_BENCH_CHAIN === 'off' ? { chain: false } : {}),
          }),
    // SPINE_BENCH_PROJECTIONS=on registers the loop's projections, as the CLI does for every
    // session: each append is then folded into them (the default measures without).
    ...(process.env.SPINE_BENCH_PROJECTIONS === 'on' ? { projections: agentLoopProjections } : {}),
    // SPINE_BENCH_SNAPSHOTS=off writes no automatic snapshots (their cost told from the rest).
    ...(process.env.SPINE_BENCH_SNAPSHOTS === 'off' ? { snapshots: false as const } : {}),
  });
  for (let i = 0; i < messages; i++) {
    if (i % 2 === 0)
      session.append(
        'user/message',
        { content: filler(i), source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
    else
      session.append(
        'assistant/message',
        { content: [{ type: 'text', text: filler(i) }], finishReason: 'stop' },
        { surfaceOp: { op: 'append' } },
      );
  }
  const client = createOpenAICompatibleModel({
    baseUrl: server.url,
    apiKey: 'bench',
    provider: 'deepseek',
  });
  // Remembers the request of each step, so the client alone can be timed on the same request.
  let lastRequest: ModelRequest | undefined;
  const model: ModelClient = {
    specificationVersion: 1,
    provider: client.provider,
    stream(modelRequest, options) {
      lastRequest = modelRequest;
      return client.stream(modelRequest, options);
    },
  };
  if (client.encodeRequest) model.encodeRequest = client.encodeRequest;
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: createToolRuntime({ cwd: dir, tools: [], sandboxBackend: null }),
    systemPrompt: new SystemPrompt('You are a benchmark agent.'),
  });
  // The agent's own preparation per step: from step/start to the recorded request/context.
  const buildTimes: number[] = [];
  let stepStarted = 0;
  session.subscribe((event) => {
    if (event.type === 'step/start') stepStarted = performance.now();
    else if (event.type === 'request/context') buildTimes.push(performance.now() - stepStarted);
  });

  /** Times one step, the client alone on the same request, and the raw POST of its body. */
  async function round(
    label: string,
  ): Promise<{ step: number; client: number; raw: number; stepCpu: number; rawCpu: number }> {
    let cpuStarted = cpuNow();
    let started = performance.now();
    const result = await agent.run(label);
    const step = performance.now() - started;
    const stepCpu = cpuNow() - cpuStarted;
    if (result.reason !== 'completed') throw new Error(`step failed: ${result.error?.message}`);
    const body = server.lastBody();
    started = performance.now();
    for await (const event of client.stream(lastRequest as ModelRequest)) {
      if (event.type === 'finish') break;
    }
    const clientOnly = performance.now() - started;
    cpuStarted = cpuNow();
    started = performance.now();
    const response = await request(`${server.url}/chat/completions`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    });
    for await (const _chunk of response.body) {
      // read the stream to the end
    }
    const raw = performance.now() - started;
    return { step, client: clientOnly, raw, stepCpu, rawCpu: cpuNow() - cpuStarted };
  }

  async function close(): Promise<void> {
    await session.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { round, close, buildTimes, bytes: () => Buffer.byteLength(server.lastBody()) };
}

/**
 * Measures `rounds` steps on a session of `messages` messages in each of `stores`, one result per
 * store. `warmup` rounds first run on a separate session of the same size (so the measured
 * history keeps its size), then 3 untimed rounds on the measured one fill its caches. No GC is forced between operations: a forced
 * full GC outside the timers hides the cost of what an operation allocated and leaves the
 * next one running on cold caches; natural collections are part of what each side costs.
 */
async function measure(
  messages: number,
  rounds: number,
  warmup: number,
  stores: readonly ('jsonl' | 'memory')[] = ['jsonl'],
): Promise<Measured[]> {
  if (warmup > 0) {
    for (const store of stores) {
      const warm = await setup(messages, store);
      try {
        for (let i = 0; i < warmup; i++) await warm.round(`warm-up ${i}`);
      } finally {
        await warm.close();
      }
    }
  }
  // With two stores, their subjects take turns within each round, so both see the same machine.
  const subjects: Awaited<ReturnType<typeof setup>>[] = [];
  try {
    for (const store of stores) subjects.push(await setup(messages, store));
    const samples = subjects.map(() => ({
      step: [] as number[],
      raw: [] as number[],
      ratios: [] as number[],
      owns: [] as number[],
      client: [] as number[],
      harnessOwns: [] as number[],
      cpuRatios: [] as number[],
    }));
    for (let round = 0; round < rounds + 3; round++) {
      for (const [index, subject] of subjects.entries()) {
        const { step, client, raw, stepCpu, rawCpu } = await subject.round(`question ${round}`);
        const into = samples[index] as (typeof samples)[number];
        if (round < 3) continue;
        into.cpuRatios.push(stepCpu / rawCpu);
        into.step.push(step);
        into.raw.push(raw);
        into.ratios.push(step / raw);
        into.owns.push(step - raw);
        into.client.push(client);
        into.harnessOwns.push(step - client);
      }
      if (round % 10 === 9) console.log(`  ${messages} messages: round ${round + 1}/${rounds + 3}`);
    }
    return subjects.map((subject, index) => {
      const taken = samples[index] as (typeof samples)[number];
      return {
        step: median(taken.step),
        raw: median(taken.raw),
        ratio: median(taken.ratios),
        ratios: taken.ratios,
        cpuRatios: taken.cpuRatios,
        own: median(taken.owns),
        client: median(taken.client),
        harnessOwn: median(taken.harnessOwns),
        build: median(subject.buildTimes.slice(3)),
        bytes: subject.bytes(),
      };
    });
  } finally {
    for (const subject of subjects) await subject.close();
  }
}

// At 100 messages a second agent keeps its session in memory, round by round beside the judged
// one: the same steps without the durable log (no encoding, chain or write-ahead write), reported
// to tell the log's share of the overhead from the rest.
const [small, inMemory] = (await measure(100, 200, 300, ['jsonl', 'memory'])) as [
  Measured,
  Measured,
];
console.log(
  `100 messages: step ${small.step.toFixed(2)} ms, client alone ${small.client.toFixed(2)} ms, raw POST ${small.raw.toFixed(2)} ms, body ${small.bytes} bytes`,
);
console.log(
  `100 messages, memory store: step ${inMemory.step.toFixed(2)} ms, raw POST ${inMemory.raw.toFixed(2)} ms`,
);
const [large] = (await measure(10_000, 40, 0)) as [Measured];
console.log(
  `10,000 messages: step ${large.step.toFixed(2)} ms, client alone ${large.client.toFixed(2)} ms, raw POST ${large.raw.toFixed(2)} ms, body ${large.bytes} bytes`,
);
const ratio100 = small.ratio;
const ratio10k = large.ratio;
const own100 = Math.max(small.own, 0.001);
const own10k = Math.max(large.own, 0);
const flat = own10k / own100;
const cpu100 = judge('step ÷ raw POST CPU, 100 messages', small.cpuRatios, { atMost: 1.3 });
const memory100 = judge('step ÷ raw POST, 100 messages, memory store', inMemory.ratios, {
  atMost: 1.3,
});
const figures = {
  bench: 'agent-loop/step-overhead',
  load1: Number(loadavg()[0]?.toFixed(2)),
  ratio100: Number(ratio100.toFixed(3)),
  ratio10k: Number(ratio10k.toFixed(3)),
  ownMs100: Number(own100.toFixed(3)),
  ownMs10k: Number(own10k.toFixed(3)),
  ownRatio10kTo100: Number(flat.toFixed(2)),
  // The agent's own request building (step/start → request/context), timed inside each step: the
  // flat-cost check without the noise of subtracting two ~15 ms operations at 10k messages.
  buildRatio10kTo100: Number((large.build / Math.max(small.build, 0.001)).toFixed(2)),
  clientRatio100: Number((small.client / small.raw).toFixed(3)),
  clientRatio10k: Number((large.client / large.raw).toFixed(3)),
  // Step − client alone: what the agent adds around the model call (at 10k, within the noise
  // of two ~15 ms operations; buildMs is the precise part).
  agentOwnMs100: Number(small.harnessOwn.toFixed(3)),
  agentOwnMs10k: Number(large.harnessOwn.toFixed(3)),
  buildMs100: Number(small.build.toFixed(3)),
  buildMs10k: Number(large.build.toFixed(3)),
  bodyBytes10k: large.bytes,
  // Reported, not judged (see Measured.cpuRatios).
  cpuRatio100: cpu100.figure,
  cpuRatio100Interval: cpu100.interval,
  // Reported, not judged: the same steps without the JSONL log (ratio100 − this is its cost).
  memoryStoreRatio100: memory100.figure,
  memoryStoreRatio100Interval: memory100.interval,
};
// Each ratio to the raw POST is judged on the 90% interval of its per-round median
// (scripts/lib/bench-interleave.ts); the flatness is a ratio of two medians, without one.
printReport({
  bench: figures.bench,
  checks: [
    judge('step ÷ raw POST, 10,000 messages', large.ratios, { atMost: 1.1 }),
    judge('step ÷ raw POST, 100 messages', small.ratios, { atMost: 1.3 }),
    judge('own time 10,000 ÷ 100 messages (of medians)', [flat], { atMost: 3 }),
  ],
  figures,
});
