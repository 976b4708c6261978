// Benchmarks @spine/mcp against the bare SDK on the same stdio server (server-everything):
// a warm tool call through the whole pipeline (tool runtime: lookup, argument validation,
// approval, timeout and abort wrappers → MCP definition → SDK → rendering) against a raw
// `client.callTool`, and server start to first tool list, cold, unsandboxed and under bubblewrap.
// Both comparisons interleave their sides round by round and judge the 90% interval of the median
// per-round ratio (scripts/lib/bench-interleave.ts): warm pipeline ÷ raw SDK call ≤ 3 (1 ms over
// a 0.5 ms raw call), sandboxed ÷ plain start ≤ 1.2. Prints one JSON object last.
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ToolCallPart } from '@spine/protocol';
import { createToolRuntime, detectSandbox } from '@spine/tool-runtime';
import {
  type BenchCheck,
  interleave,
  median,
  medianInterval,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { createMcpManager, type McpCommandWrapper } from '../src/index.js';

const require = createRequire(import.meta.url);
const server = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const log = (line: string): void => console.log(line);
// Warm calls: the issue's target is "at most 1 ms over a raw SDK call". A raw `callTool` of the
// echo tool takes about 0.5 ms on a quiet machine (0.47–0.59 ms measured at load 3–5; the README
// gives 0.4–0.5 ms), so 1 ms over is 1.5 ms ÷ 0.5 ms = 3× (at 0.4 ms it would be 3.5×, at
// 0.6 ms 2.7×; the figure stays under 2×). The per-round ratio pipeline ÷ raw stays put when the
// machine is busy (1.36–1.55× at load 3–5, 1.33–1.58× with vitest beside it at load 5–7, upper
// ends at most 1.83), while the absolute difference grows with both calls (0.16–0.28 ms at load
// 3–5, 0.42–0.43 ms with vitest beside it, intervals reaching 1.5 ms): it is reported, not judged.
const WARM_ROUNDS = 30;
const WARM_CALLS_PER_ROUND = 50;
const WARM_RATIO_TARGET = 3;
// Cold starts: 25 interleaved rounds, so the 90% interval runs from the 8th to the 18th of the
// sorted ratios (with 9 it ran from the 2nd to the 8th, nearly the whole range; with 15, medians
// of 1.08–1.11 still reached 1.23–1.25 at load 3–4).
const START_ROUNDS = 25;

/** The judged ratio of warm calls, and the absolute overhead per call it stands for (reported). */
interface WarmCalls {
  pipelineMs: number;
  rawMs: number;
  /** Median per-round `pipeline − raw` in ms per call, with its 90% interval. */
  overheadMs: number;
  overheadMs90: [number, number];
  ratio: BenchCheck;
}

async function warmCalls(): Promise<WarmCalls> {
  const manager = createMcpManager({
    servers: { everything: { command: process.execPath, args: [server, 'stdio'], trust: true } },
    cwd: process.cwd(),
  });
  const runtime = createToolRuntime({
    cwd: process.cwd(),
    tools: await manager.tools(),
    sandbox: 'workspace-write',
    approval: 'never-ask',
  });
  const raw = new Client({ name: 'bench', version: '1' });
  await raw.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [server, 'stdio'],
      stderr: 'pipe',
    }),
  );
  let id = 0;
  const pipelineCall = async (): Promise<void> => {
    id += 1;
    const call: ToolCallPart = {
      type: 'tool-call',
      id: `c${id}`,
      name: 'mcp__everything__echo',
      arguments: '{"message":"hello"}',
    };
    const [result] = await runtime.run([call]);
    if (result?.content !== 'Echo: hello') throw new Error(`unexpected ${JSON.stringify(result)}`);
  };
  const rawCall = async (): Promise<void> => {
    const result = await raw.callTool({ name: 'echo', arguments: { message: 'hello' } });
    if ((result.content as { text?: string }[])[0]?.text !== 'Echo: hello')
      throw new Error('unexpected raw result');
  };
  for (let index = 0; index < 50; index++) {
    await pipelineCall();
    await rawCall();
  }
  // Batches interleaved round by round (scripts/lib/bench-interleave.ts), so both sides see the
  // same machine load; the judged figure is the median per-round ratio pipeline ÷ raw with its
  // 90% interval (target and why: WARM_RATIO_TARGET above). The absolute overhead per call is
  // reported beside it.
  const perBatch = WARM_CALLS_PER_ROUND;
  const batchOf = (call: () => Promise<void>) => async (): Promise<number> => {
    const started = performance.now();
    for (let index = 0; index < perBatch; index++) await call();
    return (performance.now() - started) / perBatch;
  };
  const samples = await interleave({
    sides: { pipeline: batchOf(pipelineCall), raw: batchOf(rawCall) },
    rounds: WARM_ROUNDS,
    gc: false,
  });
  await raw.close();
  await manager.close();
  const overheads = samples.pipeline.map((time, round) => time - samples.raw[round]!);
  const ratio = ratioCheck(
    samples,
    'pipeline',
    'raw',
    { atMost: WARM_RATIO_TARGET },
    { name: 'warm call pipeline ÷ raw SDK call' },
  );
  const round3 = (value: number): number => Number(value.toFixed(3));
  return {
    pipelineMs: median(samples.pipeline),
    rawMs: median(samples.raw),
    overheadMs: round3(median(overheads)),
    overheadMs90: medianInterval(overheads).map(round3) as [number, number],
    ratio,
  };
}

async function coldStart(wrapCommand?: McpCommandWrapper): Promise<number> {
  const started = performance.now();
  const manager = createMcpManager({
    servers: { everything: { command: process.execPath, args: [server, 'stdio'] } },
    cwd: tmpdir(),
    ...(wrapCommand ? { wrapCommand } : {}),
  });
  const tools = await manager.tools();
  const elapsed = performance.now() - started;
  await manager.close();
  if (tools.length === 0) throw new Error(`no tools: ${JSON.stringify(manager.diagnostics())}`);
  return elapsed;
}

const warm = await warmCalls();
log(
  `warm echo: pipeline ${warm.pipelineMs.toFixed(3)} ms, raw SDK ${warm.rawMs.toFixed(3)} ms per call, overhead ${warm.overheadMs} ms [${warm.overheadMs90.join(', ')}], ratio ${warm.ratio.figure} [${warm.ratio.interval.join(', ')}] (medians of ${WARM_ROUNDS} interleaved rounds of ${WARM_CALLS_PER_ROUND} calls)`,
);

const backend = await detectSandbox();
if (backend?.info.name !== 'bwrap')
  throw new Error('bubblewrap is required for the sandboxed start');
const shellQuote = (word: string): string =>
  /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
// The harness's wrapper (packages/harness/src/mcp/sandbox.ts), inlined: mcp does not depend on the harness.
const sandboxed: McpCommandWrapper = (command, context) => {
  const wrapped = backend.wrap({
    command: ['exec', ...[command.command, ...command.args].map(shellQuote)].join(' '),
    cwd: context.cwd,
    workspace: context.cwd,
    mode: context.sandbox,
    network: context.network,
  });
  return { command: wrapped.file, args: wrapped.args, env: command.env };
};
const starts = await interleave({
  sides: { plain: () => coldStart(), confined: () => coldStart(sandboxed) },
  rounds: START_ROUNDS,
  gc: false,
});
const startMs = median(starts.plain);
const sandboxedStartMs = median(starts.confined);
log(
  `start → first tool list: ${startMs.toFixed(1)} ms, sandboxed ${sandboxedStartMs.toFixed(1)} ms`,
);
const sandboxCheck = ratioCheck(
  starts,
  'confined',
  'plain',
  { atMost: 1.2 },
  { name: 'sandboxed start ÷ plain start' },
);
printReport({
  bench: 'mcp',
  checks: [warm.ratio, sandboxCheck],
  figures: {
    warmPipelineMs: Number(warm.pipelineMs.toFixed(3)),
    warmRawSdkMs: Number(warm.rawMs.toFixed(3)),
    overheadMsPerCall: warm.overheadMs,
    overheadMsPerCall90: warm.overheadMs90,
    ratioPipelineToRaw: warm.ratio.figure,
    ratioPipelineToRaw90: warm.ratio.interval,
    startToToolsMs: Number(startMs.toFixed(1)),
    sandboxedStartToToolsMs: Number(sandboxedStartMs.toFixed(1)),
    sandboxRatio: sandboxCheck.figure,
    sandboxRatio90: sandboxCheck.interval,
  },
});
