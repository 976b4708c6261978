// Benchmarks @spine/mcp against the bare SDK on the same stdio server (server-everything):
// a warm tool call through the whole pipeline (tool runtime: lookup, argument validation,
// approval, timeout and abort wrappers → MCP definition → SDK → rendering) against a raw
// `client.callTool`, and server start to first tool list, cold, unsandboxed and under bubblewrap.
// Prints one JSON object last.
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ToolCallPart } from '@spine/protocol';
import { createToolRuntime, detectSandbox } from '@spine/tool-runtime';
import { createMcpManager, type McpCommandWrapper } from '../src/index.js';

const require = createRequire(import.meta.url);
const server = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const log = (line: string): void => console.log(line);
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function warmCalls(): Promise<{ pipelineMs: number; rawMs: number; overheadMs: number }> {
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
  // Batches alternate so both sides see the same machine load; the median batch is reported.
  const pipeline: number[] = [];
  const bare: number[] = [];
  const perBatch = 50;
  for (let batch = 0; batch < 12; batch++) {
    let started = performance.now();
    for (let index = 0; index < perBatch; index++) await pipelineCall();
    pipeline.push((performance.now() - started) / perBatch);
    started = performance.now();
    for (let index = 0; index < perBatch; index++) await rawCall();
    bare.push((performance.now() - started) / perBatch);
  }
  await raw.close();
  await manager.close();
  const pipelineMs = median(pipeline);
  const rawMs = median(bare);
  return { pipelineMs, rawMs, overheadMs: pipelineMs - rawMs };
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
const plain: number[] = [];
const confined: number[] = [];
for (let round = 0; round < 7; round++) {
  plain.push(await coldStart());
  confined.push(await coldStart(sandboxed));
}
const startMs = median(plain);
const sandboxedStartMs = median(confined);
log(
  `start → first tool list: ${startMs.toFixed(1)} ms, sandboxed ${sandboxedStartMs.toFixed(1)} ms`,
);
const sandboxRatio = sandboxedStartMs / startMs;
console.log(
  JSON.stringify({
    bench: 'mcp',
    warmPipelineMs: Number(warm.pipelineMs.toFixed(3)),
    warmRawSdkMs: Number(warm.rawMs.toFixed(3)),
    overheadMsPerCall: Number(warm.overheadMs.toFixed(3)),
    ratioPipelineToRaw: Number((warm.pipelineMs / warm.rawMs).toFixed(3)),
    startToToolsMs: Number(startMs.toFixed(1)),
    sandboxedStartToToolsMs: Number(sandboxedStartMs.toFixed(1)),
    sandboxRatio: Number(sandboxRatio.toFixed(3)),
    pass: warm.overheadMs <= 1 && sandboxRatio <= 1.2,
  }),
);
