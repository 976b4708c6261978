// Benchmarks the server half of @spine/mcp: a warm `read` through `createMcpToolServer` (the
// official SDK client → JSON-RPC → the server → Spine's tool runtime → back), over stdio to a
// separate process and over the SDK's in-memory transport, against the same call made
// in-process with the runtime's `run`. Overhead per call = median(served) − median(in-process).
// Prints one JSON object last.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AnyToolDefinition } from '@spine/protocol';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { createMcpToolServer } from '../src/index.js';

const ROUNDS = 2000;
const WARMUP = 300;
const log = (line: string): void => console.log(line);
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function timed(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

const cwd = mkdtempSync(join(tmpdir(), 'spine-serve-bench-'));
writeFileSync(join(cwd, 'notes.md'), `${'a line of notes\n'.repeat(200)}`);
const tools = createWorkspaceTools({ cwd }) as AnyToolDefinition[];
const runtime = createToolRuntime({ cwd, tools, approval: 'never-ask' });
const args = { path: 'notes.md', limit: 50 };

let id = 0;
const inProcessMs = await timed(() =>
  runtime.run([
    { type: 'tool-call', id: `c${++id}`, name: 'read', arguments: JSON.stringify(args) },
  ]),
);

const memoryClient = new Client({ name: 'bench', version: '1' });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await createMcpToolServer({ scheduler: runtime, tools, onEvent: () => {} }).connect(serverSide);
await memoryClient.connect(clientSide);
const inMemoryMs = await timed(() => memoryClient.callTool({ name: 'read', arguments: args }));
await memoryClient.close();

const stdioClient = new Client({ name: 'bench', version: '1' });
await stdioClient.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      fileURLToPath(new URL('../test/servers/serve-workspace.ts', import.meta.url)),
      cwd,
    ],
    stderr: 'inherit',
  }),
);
const stdioMs = await timed(() => stdioClient.callTool({ name: 'read', arguments: args }));
await stdioClient.close();
rmSync(cwd, { recursive: true, force: true });

const stdioOverheadMs = stdioMs - inProcessMs;
const inMemoryOverheadMs = inMemoryMs - inProcessMs;
log(`warm read in-process ${inProcessMs.toFixed(3)} ms`);
log(`through the server: in-memory ${inMemoryMs.toFixed(3)} ms, stdio ${stdioMs.toFixed(3)} ms`);
console.log(
  JSON.stringify({
    bench: 'mcp-serve',
    warmReadInProcessMs: Number(inProcessMs.toFixed(3)),
    warmReadInMemoryMs: Number(inMemoryMs.toFixed(3)),
    warmReadStdioMs: Number(stdioMs.toFixed(3)),
    overheadInMemoryMs: Number(inMemoryOverheadMs.toFixed(3)),
    overheadStdioMs: Number(stdioOverheadMs.toFixed(3)),
    pass: stdioOverheadMs <= 1,
  }),
);
