// Benchmarks the server half of @spine/mcp: a warm `read` through `createMcpToolServer` (the
// official SDK client → JSON-RPC → the server → Spine's tool runtime → back), over stdio to a
// separate process and over the SDK's in-memory transport, against the same call made
// in-process with the runtime's `run`. The three run round by round in one process
// (scripts/lib/bench-interleave.ts), a batch of calls each per round, so a busy machine slows
// them alike; the overhead per call is stdio − in-process of the same round, judged on the 90%
// interval of its median (target ≤ 1 ms). Prints one JSON object last.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AnyToolDefinition } from '@spine/protocol';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import {
  interleave,
  judge,
  medianTimes,
  printReport,
} from '../../../scripts/lib/bench-interleave.js';
import { createMcpToolServer } from '../src/index.js';

/** Calls per side per round, rounds measured, rounds discarded first. */
const BATCH = 40;
const ROUNDS = 50;
const WARMUP = 8;

/** A side of the interleaving: `BATCH` calls one after another. */
function batch(call: () => Promise<unknown>): () => Promise<undefined> {
  return async () => {
    for (let i = 0; i < BATCH; i++) await call();
    return undefined;
  };
}

const cwd = mkdtempSync(join(tmpdir(), 'spine-serve-bench-'));
writeFileSync(join(cwd, 'notes.md'), `${'a line of notes\n'.repeat(200)}`);
const tools = createWorkspaceTools({ cwd }) as AnyToolDefinition[];
const runtime = createToolRuntime({ cwd, tools, approval: 'never-ask' });
const args = { path: 'notes.md', limit: 50 };

let id = 0;
const inProcess = batch(() =>
  runtime.run([
    { type: 'tool-call', id: `c${++id}`, name: 'read', arguments: JSON.stringify(args) },
  ]),
);

const memoryClient = new Client({ name: 'bench', version: '1' });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await createMcpToolServer({ scheduler: runtime, tools, onEvent: () => {} }).connect(serverSide);
await memoryClient.connect(clientSide);

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
const samples = await interleave({
  sides: {
    inProcess,
    inMemory: batch(() => memoryClient.callTool({ name: 'read', arguments: args })),
    stdio: batch(() => stdioClient.callTool({ name: 'read', arguments: args })),
  },
  rounds: ROUNDS,
  warmup: WARMUP,
  gc: false,
});
await memoryClient.close();
await stdioClient.close();
rmSync(cwd, { recursive: true, force: true });

/** Per call, ms: each round's batch time of `side` minus the in-process batch of that round. */
const overheadPerCall = (side: 'inMemory' | 'stdio'): number[] =>
  samples[side].map((time, round) => (time - (samples.inProcess[round] as number)) / BATCH);
const stdioCheck = judge('stdio overhead per call, ms', overheadPerCall('stdio'), { atMost: 1 });
const memoryOverhead = judge('in-memory overhead per call, ms', overheadPerCall('inMemory'), {
  atMost: 1,
});
const ms = medianTimes(samples);
const perCall = (value: number): number => Number((value / BATCH).toFixed(3));
console.log(
  `warm read in-process ${perCall(ms.inProcess)} ms; through the server: in-memory ${perCall(ms.inMemory)} ms, stdio ${perCall(ms.stdio)} ms (medians of ${ROUNDS} interleaved rounds of ${BATCH} calls)`,
);
printReport({
  bench: 'mcp-serve',
  checks: [stdioCheck],
  figures: {
    load1: Number(loadavg()[0]?.toFixed(2)),
    warmReadInProcessMs: perCall(ms.inProcess),
    warmReadInMemoryMs: perCall(ms.inMemory),
    warmReadStdioMs: perCall(ms.stdio),
    overheadInMemoryMs: memoryOverhead.figure,
    overheadInMemoryInterval: memoryOverhead.interval,
    overheadStdioMs: stdioCheck.figure,
    overheadStdioInterval: stdioCheck.interval,
  },
});
