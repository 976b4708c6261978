// Benchmark on a copy of this repository (every package, app, test, benchmark and example):
// 1. cold start to the first complete workspace-wide answer (references by symbol name through
//    the tool, checked against the same question asked again warm);
// 2. warm medians of definition, references and incoming calls through the manager, against raw
//    JSON-RPC round trips (vscode-jsonrpc, no manager) to a second typescript-language-server
//    on the same copy, measured in the same run;
// 3. resident memory of the server processes (typescript-language-server and its tsserver)
//    after the suite.
// The issue sets no ratio target, so `pass` says whether every answer was complete and correct.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolExecutionContext } from '@spine/protocol';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { createLspManager, createLspTools, createTypescriptServer } from '../src/index.js';
import { copyRepository } from '../test/support/repo-copy.js';

const RUNS = 20;
const SYMBOL = 'createLspManager';
const root = mkdtempSync(join(tmpdir(), 'spine-lsp-bench-'));
const workspace = copyRepository(join(root, 'repo'));
const declarationFile = 'packages/lsp-tools/src/manager.ts';
const declarationLine = readFileSync(join(workspace, declarationFile), 'utf8')
  .split('\n')
  .findIndex((line) => line.startsWith(`export function ${SYMBOL}(`));
const declaration = {
  path: declarationFile,
  line: declarationLine + 1,
  column: `export function `.length + 1,
};
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
let correct = true;
const check = (label: string, ok: boolean): void => {
  if (!ok) {
    correct = false;
    console.log(`WRONG ANSWER: ${label}`);
  }
};
/** Resident memory (MB) of a process and all its descendants, from /proc. */
function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  let kb = 0;
  const visit = (each: number): void => {
    try {
      const status = readFileSync(`/proc/${each}/status`, 'utf8');
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      return;
    }
    for (const child of children.get(each) ?? []) visit(child);
  };
  visit(pid);
  return Math.round(kb / 1024);
}

// 1. Cold start to the first complete workspace-wide answer, through the tool.
const coldStarted = performance.now();
const manager = createLspManager({ cwd: workspace });
const tools = new Map(createLspTools(manager).map((tool) => [tool.spec.name, tool]));
const first = await tools.get('lsp_references')!.execute({ symbol: SYMBOL, max: 500 }, context);
const coldMs = performance.now() - coldStarted;
const countOf = (content: string): number => Number(/^(\d+) references/.exec(content)?.[1] ?? -1);
console.log(
  `cold start to first workspace-wide answer: ${coldMs.toFixed(0)} ms, ${countOf(first.content)} references`,
);
check('cold answer not partial', !first.content.includes('Possibly incomplete'));

// 2. Warm medians through the manager.
const warm = { definition: [] as number[], references: [] as number[], incoming: [] as number[] };
const position = { line: declaration.line, column: declaration.column };
let referenceCount = 0;
let incomingCount = 0;
for (let run = 0; run < RUNS; run += 1) {
  let started = performance.now();
  const definition = await manager.definition(declaration.path, position);
  warm.definition.push(performance.now() - started);
  started = performance.now();
  const references = await manager.references(declaration.path, position);
  warm.references.push(performance.now() - started);
  started = performance.now();
  const hierarchy = await manager.callHierarchy(declaration.path, position);
  warm.incoming.push(performance.now() - started);
  if (run === 0) {
    check('warm definition', definition.length === 1);
    referenceCount = references.length;
    incomingCount = hierarchy.flatMap((each) => each.incoming).length;
  }
}
const again = await tools.get('lsp_references')!.execute({ symbol: SYMBOL, max: 500 }, context);
check('cold answer equals warm answer', again.content === first.content);
check('cold answer complete', countOf(first.content) === referenceCount);
check('one process for everything', manager.starts === 1);
const serverPid = manager.status()[0]!.pid!;
const serverRssMb = treeRssMb(serverPid);
console.log(
  `warm manager: definition ${median(warm.definition)} ms, references ${median(warm.references)} ms (${referenceCount}), incoming calls ${median(warm.incoming)} ms (${incomingCount} callers); servers ${serverRssMb} MB RSS`,
);
await manager.shutdown();

// 3. Baseline: raw JSON-RPC to a second server, same initialization options, no manager; it
// opens only the declaring file, so its answers cover that file's project alone.
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
const uri = pathToFileURL(join(workspace, declaration.path)).href;
await connection.sendNotification('textDocument/didOpen', {
  textDocument: {
    uri,
    languageId: 'typescript',
    version: 1,
    text: readFileSync(join(workspace, declaration.path), 'utf8'),
  },
});
const params = {
  textDocument: { uri },
  position: { line: declaration.line - 1, character: declaration.column - 1 },
};
const rawFirst = (await connection.sendRequest('textDocument/references', {
  ...params,
  context: { includeDeclaration: true },
})) as unknown[];
const rawColdMs = performance.now() - rawStarted;
console.log(
  `raw JSON-RPC cold start to first answer: ${rawColdMs.toFixed(0)} ms, ${rawFirst.length} references (one project)`,
);
const raw = { definition: [] as number[], references: [] as number[], incoming: [] as number[] };
for (let run = 0; run < RUNS; run += 1) {
  let started = performance.now();
  await connection.sendRequest('textDocument/definition', params);
  raw.definition.push(performance.now() - started);
  started = performance.now();
  await connection.sendRequest('textDocument/references', {
    ...params,
    context: { includeDeclaration: true },
  });
  raw.references.push(performance.now() - started);
  started = performance.now();
  const items = (await connection.sendRequest(
    'textDocument/prepareCallHierarchy',
    params,
  )) as unknown[];
  await connection.sendRequest('callHierarchy/incomingCalls', { item: items[0] });
  raw.incoming.push(performance.now() - started);
}
const rawRssMb = treeRssMb(child.pid!);
console.log(
  `raw JSON-RPC: definition ${median(raw.definition)} ms, references ${median(raw.references)} ms, incoming calls ${median(raw.incoming)} ms; server ${rawRssMb} MB RSS`,
);
await connection.sendRequest('shutdown');
await connection.sendNotification('exit');
connection.dispose();
child.kill('SIGKILL');
rmSync(root, { recursive: true, force: true });

const tsls = createRequire(import.meta.url)('typescript-language-server/package.json') as {
  version: string;
};
const ratio = (a: number, b: number): number => Number((a / Math.max(b, 0.01)).toFixed(2));
console.log(
  JSON.stringify({
    bench: 'lsp-tools/lsp',
    server: `typescript-language-server ${tsls.version}`,
    workspace: 'copy of this repository',
    symbol: SYMBOL,
    coldStartToFirstCompleteAnswerMs: Math.round(coldMs),
    baselineRawColdStartToFirstAnswerMs: Math.round(rawColdMs),
    coldRatio: ratio(coldMs, rawColdMs),
    references: referenceCount,
    baselineRawReferences: rawFirst.length,
    incomingCallers: incomingCount,
    warmDefinitionMedianMs: median(warm.definition),
    warmReferencesMedianMs: median(warm.references),
    warmIncomingCallsMedianMs: median(warm.incoming),
    baselineRawDefinitionMedianMs: median(raw.definition),
    baselineRawReferencesMedianMs: median(raw.references),
    baselineRawIncomingCallsMedianMs: median(raw.incoming),
    definitionRatio: ratio(median(warm.definition), median(raw.definition)),
    referencesRatio: ratio(median(warm.references), median(raw.references)),
    incomingCallsRatio: ratio(median(warm.incoming), median(raw.incoming)),
    serverRssMbAfterSuite: serverRssMb,
    baselineRawServerRssMb: rawRssMb,
    runs: RUNS,
    answersCorrect: correct,
    pass: correct,
  }),
);
