// Subagent figures against a loopback OpenAI-compatible server, measured in one run:
// 1. Child start overhead: from the `task` call to the child's first request reaching the model
//    client (start event, session create, prompt assembly, request built and recorded). Target
//    ≤ 5 ms. Also reported: the whole call (the child answers in one model call) minus the model
//    client alone streaming the same request. Medians over interleaved rounds.
// 2. Parallel read-only children: four `explore` children (each: one read, then an answer, so
//    two model calls) run by the real tool scheduler against a server that waits 200 ms before
//    every answer, versus one such child. Target ≤ 1.3×. The same with grep is reported too.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatibleModel } from '@spine/llm';
import type {
  ModelClient,
  ModelRequest,
  SandboxMode,
  ToolCallPart,
  ToolExecutionContext,
} from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { createToolRuntime, createWorkspaceTools, type ToolRuntime } from '@spine/tool-runtime';
import {
  interleave,
  judge,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { createTaskTool, EXPLORE_PROFILE, type TaskArguments } from '../src/index.js';

const chunk = (delta: object, finish: string | null, usage?: object): string =>
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', model: 'deepseek-v4-flash', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
const USAGE = {
  prompt_tokens: 10,
  completion_tokens: 1,
  total_tokens: 11,
  prompt_cache_hit_tokens: 0,
  prompt_cache_miss_tokens: 10,
};
const TEXT =
  chunk({ role: 'assistant', content: 'Found at src/a.ts:1.' }, null) +
  chunk({}, 'stop', USAGE) +
  'data: [DONE]\n\n';
/** A reply calling one tool. */
const toolCall = (name: string, args: string): string =>
  chunk(
    {
      role: 'assistant',
      tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name, arguments: args } }],
    },
    null,
  ) +
  chunk({}, 'tool_calls', USAGE) +
  'data: [DONE]\n\n';

/** Answers a first request with `first` (a tool call) when given, later ones with text, after `latencyMs`. */
async function startServer(latencyMs: number, first?: string) {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (part: Buffer) => chunks.push(part));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const reply = first && !body.includes('"role":"tool"') ? first : TEXT;
      const send = () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(reply);
      };
      if (latencyMs > 0) setTimeout(send, latencyMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The child-tools factory of the CLI and the tests: the workspace tools the child may use. */
function buildChildTools(
  workspace: string,
  names: readonly string[],
  sandbox: SandboxMode,
): ToolRuntime {
  return createToolRuntime({
    cwd: workspace,
    tools: createWorkspaceTools({ cwd: workspace, sandboxBackend: null }).filter((tool) =>
      names.includes(tool.spec.name),
    ),
    sandbox,
    approval: 'never-ask',
    sandboxBackend: null,
  });
}

/** A parent with the read-only workspace tools and the task tool, over a JSONL store. */
async function parentWith(model: ModelClient, dir: string, workspace: string) {
  const store = createJsonlStore({ dir, fsync: 'never' });
  const session = await Session.create({ store, cwd: workspace });
  const tools = () => createWorkspaceTools({ cwd: workspace, sandboxBackend: null });
  const runtime = createToolRuntime({
    cwd: workspace,
    tools: tools(),
    approval: 'never-ask',
    sandboxBackend: null,
  });
  // Building a tool runtime (zod → JSON Schema, ajv compilation) is the caller's factory, timed
  // separately below; children of one profile share a runtime built once per tool set and mode.
  const built = new Map<string, ToolRuntime>();
  const task = createTaskTool({
    session,
    store,
    tools: runtime,
    sandbox: 'workspace-write',
    model: { model, modelId: 'deepseek-v4-flash' },
    profiles: [EXPLORE_PROFILE],
    createTools: (request) => {
      const key = `${request.sandbox}:${request.tools.join(',')}`;
      let scheduler = built.get(key);
      if (!scheduler) {
        scheduler = buildChildTools(workspace, request.tools, request.sandbox);
        built.set(key, scheduler);
      }
      return scheduler;
    },
  });
  runtime.register(task);
  return { session, runtime, task };
}

const root = mkdtempSync(join(tmpdir(), 'spine-sub-bench-'));
const workspace = join(root, 'ws');
mkdirSync(join(workspace, 'src'), { recursive: true });
writeFileSync(join(workspace, 'src/a.ts'), 'export const alpha = 1;\n');

// 1. Child start overhead.
const fast = await startServer(0);
const fastModel = createOpenAICompatibleModel({
  baseUrl: fast.url,
  apiKey: 'k',
  provider: 'deepseek',
});
// The child's model: the same client, noting when the child's first request is handed to it.
let streamCalledAt = 0;
const markedModel: ModelClient = {
  specificationVersion: 1,
  provider: fastModel.provider,
  stream(request, options) {
    streamCalledAt = performance.now();
    return fastModel.stream(request, options);
  },
};
const parent = await parentWith(markedModel, join(root, 's1'), workspace);
const args: TaskArguments = {
  description: 'find alpha',
  prompt: 'Where is alpha defined?',
  profile: 'explore',
};
const specs = parent.runtime.specs().filter((spec) => EXPLORE_PROFILE.tools?.includes(spec.name));
const direct: ModelRequest = {
  model: 'deepseek-v4-flash',
  system: EXPLORE_PROFILE.prompt,
  messages: [{ role: 'user', content: args.prompt }],
  tools: specs,
};
const context = (callId: string): ToolExecutionContext => ({
  callId,
  signal: new AbortController().signal,
  cwd: workspace,
  sandbox: 'workspace-write',
});
/** The whole task call, and the part before the child's first request reaches the client. */
async function timeChild(i: number): Promise<{ total: number; start: number }> {
  const start = performance.now();
  const output = await parent.task.execute(args, context(`call_${i}`));
  if (output.isError) throw new Error(`child failed: ${output.content}`);
  return { total: performance.now() - start, start: streamCalledAt - start };
}
async function timeClient(): Promise<number> {
  const start = performance.now();
  for await (const event of fastModel.stream(direct)) void event;
  return performance.now() - start;
}
for (let i = 0; i < 200; i++) {
  await timeChild(-i - 1);
  await timeClient();
}
const overheads: number[] = [];
const starts: number[] = [];
const childTimes: number[] = [];
const clientTimes: number[] = [];
for (let i = 0; i < 150; i++) {
  const child = await timeChild(i);
  const client = await timeClient();
  childTimes.push(child.total);
  clientTimes.push(client);
  starts.push(child.start);
  overheads.push(child.total - client);
}
// The figure: session create, prompt assembly and the first request built, i.e. the time
// from the task call to the child's first request reaching the model client.
const startMs = median(starts);
// Everything the whole call adds to one model call (also closing the child, the end event, the result).
const overheadMs = median(overheads);
console.log(
  `child start: ${startMs.toFixed(2)} ms before the child's first request; whole task call ${median(childTimes).toFixed(2)} ms, client alone ${median(clientTimes).toFixed(2)} ms, so ${overheadMs.toFixed(2)} ms beyond the model call (medians of 150)`,
);
const factoryTimes: number[] = [];
for (let i = 0; i < 7; i++) {
  const start = performance.now();
  buildChildTools(workspace, EXPLORE_PROFILE.tools ?? [], 'read-only');
  factoryTimes.push(performance.now() - start);
}
console.log(
  `tool factory (not part of the overhead): ${median(factoryTimes).toFixed(1)} ms per runtime built`,
);
await parent.session.close();
await fast.close();

// 2. Four parallel read-only children vs one, 200 ms per model answer. Each child makes one tool
// call and then answers (two model calls). With `read` the tool runs in-process; with `grep` each
// call also starts a ripgrep process, which on a loaded machine measures process start-up too.
async function parallel(tool: string, toolArgs: string, dir: string) {
  const slow = await startServer(200, toolCall(tool, toolArgs));
  const slowModel = createOpenAICompatibleModel({
    baseUrl: slow.url,
    apiKey: 'k',
    provider: 'deepseek',
  });
  const tree = await parentWith(slowModel, join(root, dir), workspace);
  const calls = (n: number, round: number): ToolCallPart[] =>
    Array.from({ length: n }, (_, i) => ({
      type: 'tool-call',
      id: `r${round}_${i}`,
      name: 'task',
      arguments: JSON.stringify(args),
    }));
  const timeBatch = async (n: number, round: number): Promise<number> => {
    const start = performance.now();
    const results = await tree.runtime.run(calls(n, round));
    const failed = results.find((result) => result.isError);
    if (failed) throw new Error(`child failed: ${failed.content}`);
    return performance.now() - start;
  };
  await timeBatch(4, -1);
  // Interleaved round by round (scripts/lib/bench-interleave.ts); judged on the 90% interval of
  // the median per-round ratio four ÷ one.
  let round = 0;
  const samples = await interleave({
    sides: { one: () => timeBatch(1, round++), four: () => timeBatch(4, round++) },
    rounds: 9,
    gc: false,
  });
  await tree.session.close();
  await slow.close();
  const check = ratioCheck(
    samples,
    'four',
    'one',
    { atMost: 1.3 },
    { name: `four children ÷ one (${tool})` },
  );
  const figures = { one: median(samples.one), four: median(samples.four), check };
  console.log(
    `parallel (${tool}): one child ${figures.one.toFixed(0)} ms, four children ${figures.four.toFixed(0)} ms, ratio ${check.figure} [${check.interval.join(', ')}] (median of 9, 200 ms per model answer)`,
  );
  return figures;
}
const withRead = await parallel('read', '{"path":"src/a.ts"}', 's2');
const withGrep = await parallel('grep', '{"pattern":"alpha"}', 's3');
rmSync(root, { recursive: true, force: true });

const startCheck = judge('child start ms', starts, { atMost: 5 });
printReport({
  bench: 'subagents',
  checks: [startCheck, withRead.check],
  figures: {
    load1: Number(loadavg()[0]?.toFixed(2)),
    childStartMs: Number(startMs.toFixed(3)),
    childStartMs90: startCheck.interval,
    childCallOverheadMs: Number(overheadMs.toFixed(3)),
    toolFactoryMs: Number(median(factoryTimes).toFixed(1)),
    childTaskMs: Number(median(childTimes).toFixed(3)),
    clientAloneMs: Number(median(clientTimes).toFixed(3)),
    oneChildMs: Number(withRead.one.toFixed(1)),
    fourChildrenMs: Number(withRead.four.toFixed(1)),
    parallelRatio: withRead.check.figure,
    parallelRatio90: withRead.check.interval,
    parallelRatioGrep: withGrep.check.figure,
    parallelRatioGrep90: withGrep.check.interval,
  },
});
