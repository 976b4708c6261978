// Benchmarks @spine/mcp against the bare SDK on the same stdio server (server-everything):
// a warm tool call through the whole pipeline (tool runtime: lookup, argument validation,
// approval, timeout and abort wrappers → MCP definition → SDK → rendering) against a raw
// `client.callTool`, and server start to first tool list, cold, unsandboxed and under bubblewrap.
// Both comparisons interleave their sides round by round and judge 90% intervals
// (scripts/lib/bench-interleave.ts). Prints one JSON object last.
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
  judge,
  median,
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

async function warmCalls(): Promise<{ pipelineMs: number; rawMs: number; overhead: BenchCheck }> {
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
  // same machine load; the judged figure is the median per-round overhead with its 90% interval.
  const perBatch = 50;
  const batchOf = (call: () => Promise<void>) => async (): Promise<number> => {
    const started = performance.now();
    for (let index = 0; index < perBatch; index++) await call();
    return (performance.now() - started) / perBatch;
  };
  const samples = await interleave({
    sides: { pipeline: batchOf(pipelineCall), raw: batchOf(rawCall) },
    rounds: 15,
    gc: false,
  });
  await raw.close();
  await manager.close();
  const overhead = judge(
    'warm call overhead ms (pipeline − raw SDK)',
    samples.pipeline.map((time, round) => time - samples.raw[round]!),
    { atMost: 1 },
  );
  return { pipelineMs: median(samples.pipeline), rawMs: median(samples.raw), overhead };
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
  `warm echo: pipeline ${warm.pipelineMs.toFixed(3)} ms, raw SDK ${warm.rawMs.toFixed(3)} ms per call`,
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
  rounds: 9,
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
  checks: [warm.overhead, sandboxCheck],
  figures: {
    warmPipelineMs: Number(warm.pipelineMs.toFixed(3)),
    warmRawSdkMs: Number(warm.rawMs.toFixed(3)),
    overheadMsPerCall: warm.overhead.figure,
    overheadMsPerCall90: warm.overhead.interval,
    ratioPipelineToRaw: Number((warm.pipelineMs / warm.rawMs).toFixed(3)),
    startToToolsMs: Number(startMs.toFixed(1)),
    sandboxedStartToToolsMs: Number(sandboxedStartMs.toFixed(1)),
    sandboxRatio: sandboxCheck.figure,
    sandboxRatio90: sandboxCheck.interval,
  },
});
