// Benchmark: cold start to first answer, and warm lsp_definition / lsp_references latency
// (median of 50) through the tools, on the fixture project. Baseline, measured in the same run:
// raw JSON-RPC round trips (vscode-jsonrpc, no manager, no formatting) to a second
// typescript-language-server on the same project. The issue sets no ratio target, so `pass`
// says whether every answer was correct.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ToolExecutionContext } from '@spine/protocol';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { createLspManager, createLspTools, createTypescriptServer } from '../src/index.js';

const RUNS = 50;
const COLD_RUNS = 2;
const fixture = fileURLToPath(new URL('../test/fixtures/ts-project/', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'spine-lsp-bench-'));
const workspace = join(root, 'project');
cpSync(fixture, workspace, { recursive: true });

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(2));
};
const context: ToolExecutionContext = {
  callId: 'bench',
  signal: new AbortController().signal,
  cwd: workspace,
  sandbox: 'read-only',
};
const definitionArgs = { path: 'src/main.ts', line: 8, column: 20 };
const referencesArgs = { path: 'src/shapes/shape.ts', line: 5, column: 12 };
let correct = true;
const check = (label: string, ok: boolean): void => {
  if (!ok) {
    correct = false;
    console.log(`WRONG ANSWER: ${label}`);
  }
};

// 1. Cold start to first answer through the tool (new manager, new server each run).
const coldMs: number[] = [];
for (let run = 0; run < COLD_RUNS; run += 1) {
  const started = performance.now();
  const manager = createLspManager({ cwd: workspace });
  const definition = createLspTools(manager)[0]!;
  const output = await definition.execute(definitionArgs, context);
  coldMs.push(performance.now() - started);
  check('cold definition', output.content.includes('src/geometry.ts:3:17'));
  await manager.shutdown();
  console.log(`cold start ${run + 1}/${COLD_RUNS}: ${coldMs.at(-1)!.toFixed(0)} ms`);
}

// 2. Warm tool latency, one server, reused.
const manager = createLspManager({ cwd: workspace });
const [definitionTool, referencesTool] = createLspTools(manager);
await definitionTool!.execute(definitionArgs, context);
const warmDefinition: number[] = [];
const warmReferences: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  let started = performance.now();
  const definition = await definitionTool!.execute(definitionArgs, context);
  warmDefinition.push(performance.now() - started);
  started = performance.now();
  const references = await referencesTool!.execute(referencesArgs, context);
  warmReferences.push(performance.now() - started);
  if (run === 0) {
    check('warm definition', definition.content.includes('src/geometry.ts:3:17'));
    check('warm references', references.content.startsWith('8 references to `area`'));
  }
}
console.log(
  `warm tool: definition median ${median(warmDefinition)} ms, references median ${median(warmReferences)} ms`,
);
check('one process for all warm queries', manager.starts === 1);
await manager.shutdown();

// 3. Baseline: raw JSON-RPC to a second server, same initialization options, no manager.
const config = createTypescriptServer();
const rawStarted = performance.now();
const child = spawn(config.command, config.args ?? [], {
  cwd: workspace,
  stdio: ['pipe', 'pipe', 'ignore'],
});
const connection = createMessageConnection(
  new StreamMessageReader(child.stdout),
  new StreamMessageWriter(child.stdin),
);
connection.listen();
connection.onRequest(() => null);
const rootUri = pathToFileURL(workspace).href;
await connection.sendRequest('initialize', {
  processId: process.pid,
  rootUri,
  workspaceFolders: [{ uri: rootUri, name: 'bench' }],
  capabilities: {},
  initializationOptions: config.initializationOptions,
});
await connection.sendNotification('initialized', {});
for (const file of ['src/main.ts', 'src/shapes/shape.ts']) {
  const uri = pathToFileURL(join(workspace, file)).href;
  const text = readFileSync(join(workspace, file), 'utf8');
  await connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'typescript', version: 1, text },
  });
}
const position = (args: { path: string; line: number; column: number }) => ({
  textDocument: { uri: pathToFileURL(join(workspace, args.path)).href },
  position: { line: args.line - 1, character: args.column - 1 },
});
await connection.sendRequest('textDocument/definition', position(definitionArgs));
const rawColdMs = performance.now() - rawStarted;
console.log(`raw JSON-RPC cold start to first answer: ${rawColdMs.toFixed(0)} ms`);
const rawDefinition: number[] = [];
const rawReferences: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  let started = performance.now();
  const definition = (await connection.sendRequest(
    'textDocument/definition',
    position(definitionArgs),
  )) as unknown[];
  rawDefinition.push(performance.now() - started);
  started = performance.now();
  const references = (await connection.sendRequest('textDocument/references', {
    ...position(referencesArgs),
    context: { includeDeclaration: true },
  })) as unknown[];
  rawReferences.push(performance.now() - started);
  if (run === 0) check('raw answers', definition.length === 1 && references.length === 8);
}
console.log(
  `raw JSON-RPC: definition median ${median(rawDefinition)} ms, references median ${median(rawReferences)} ms`,
);
await connection.sendRequest('shutdown');
await connection.sendNotification('exit');
connection.dispose();
child.kill('SIGKILL');
rmSync(root, { recursive: true, force: true });

const tsls = createRequire(import.meta.url)('typescript-language-server/package.json') as {
  version: string;
};
console.log(
  JSON.stringify({
    bench: 'lsp-tools/lsp',
    server: `typescript-language-server ${tsls.version}`,
    coldStartToFirstAnswerMs: coldMs.map((value) => Math.round(value)),
    coldStartMedianMs: Math.round(median(coldMs)),
    baselineRawColdStartMs: Math.round(rawColdMs),
    warmDefinitionMedianMs: median(warmDefinition),
    warmReferencesMedianMs: median(warmReferences),
    baselineRawDefinitionMedianMs: median(rawDefinition),
    baselineRawReferencesMedianMs: median(rawReferences),
    definitionOverheadMs: Number((median(warmDefinition) - median(rawDefinition)).toFixed(2)),
    referencesOverheadMs: Number((median(warmReferences) - median(rawReferences)).toFixed(2)),
    runs: RUNS,
    answersCorrect: correct,
    pass: correct,
  }),
);
