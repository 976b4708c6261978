// Subagent figures against a loopback OpenAI-compatible server, measured in one run:
// 1. Child start overhead: a `task` call whose child answers in one model call, minus the model
//    client alone streaming the same request (session create, prompt assembly, request building,
//    logging both sessions, closing the child). Target ≤ 5 ms. Medians over interleaved rounds.
// 2. Parallel read-only children: four `explore` children (each: one grep, then an answer, so
//    two model calls) run by the real tool scheduler against a server that waits 200 ms before
//    every answer, versus one such child. Target ≤ 1.3×.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatibleModel } from '@spine/llm';
import type {
  ModelClient,
  ModelRequest,
  ToolCallPart,
  ToolExecutionContext,
} from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { createToolRuntime, createWorkspaceTools, type ToolRuntime } from '@spine/tool-runtime';
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
const GREP =
  chunk(
    {
      role: 'assistant',
      tool_calls: [
        {
          index: 0,
          id: 'g1',
          type: 'function',
          function: { name: 'grep', arguments: '{"pattern":"alpha"}' },
        },
      ],
    },
    null,
  ) +
  chunk({}, 'tool_calls', USAGE) +
  'data: [DONE]\n\n';

/** Answers a first request with a grep call (when `grepFirst`), later ones with text, after `latencyMs`. */
async function startServer(latencyMs: number, grepFirst: boolean) {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (part: Buffer) => chunks.push(part));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const reply = grepFirst && !body.includes('"role":"tool"') ? GREP : TEXT;
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
const fast = await startServer(0, false);
const fastModel = createOpenAICompatibleModel({
  baseUrl: fast.url,
  apiKey: 'k',
  provider: 'deepseek',
});
const parent = await parentWith(fastModel, join(root, 's1'), workspace);
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
async function timeChild(i: number): Promise<number> {
  const start = performance.now();
  const output = await parent.task.execute(args, context(`call_${i}`));
  if (output.isError) throw new Error(`child failed: ${output.content}`);
  return performance.now() - start;
}
async function timeClient(): Promise<number> {
  const start = performance.now();
  for await (const event of fastModel.stream(direct)) void event;
  return performance.now() - start;
}
for (let i = 0; i < 30; i++) {
  await timeChild(-i - 1);
  await timeClient();
}
const overheads: number[] = [];
const childTimes: number[] = [];
const clientTimes: number[] = [];
for (let i = 0; i < 150; i++) {
  const child = await timeChild(i);
  const client = await timeClient();
  childTimes.push(child);
  clientTimes.push(client);
  overheads.push(child - client);
}
const overheadMs = median(overheads);
console.log(
  `child start: task call ${median(childTimes).toFixed(2)} ms, client alone ${median(clientTimes).toFixed(2)} ms, overhead ${overheadMs.toFixed(2)} ms (median of 150)`,
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

// 2. Four parallel read-only children vs one, 200 ms per model answer.
const slow = await startServer(200, true);
const slowModel = createOpenAICompatibleModel({
  baseUrl: slow.url,
  apiKey: 'k',
  provider: 'deepseek',
});
const tree = await parentWith(slowModel, join(root, 's2'), workspace);
const calls = (n: number, round: number): ToolCallPart[] =>
  Array.from({ length: n }, (_, i) => ({
    type: 'tool-call',
    id: `r${round}_${i}`,
    name: 'task',
    arguments: JSON.stringify(args),
  }));
async function timeBatch(n: number, round: number): Promise<number> {
  const start = performance.now();
  const results = await tree.runtime.run(calls(n, round));
  const failed = results.find((result) => result.isError);
  if (failed) throw new Error(`child failed: ${failed.content}`);
  return performance.now() - start;
}
await timeBatch(1, -1);
const ratios: number[] = [];
const ones: number[] = [];
const fours: number[] = [];
for (let round = 0; round < 5; round++) {
  const one = await timeBatch(1, round * 2);
  const four = await timeBatch(4, round * 2 + 1);
  ones.push(one);
  fours.push(four);
  ratios.push(four / one);
}
const parallelRatio = median(ratios);
console.log(
  `parallel: one child ${median(ones).toFixed(0)} ms, four children ${median(fours).toFixed(0)} ms, ratio ${parallelRatio.toFixed(3)} (median of 5, 200 ms per model answer)`,
);
await tree.session.close();
await slow.close();
rmSync(root, { recursive: true, force: true });

console.log(
  JSON.stringify({
    bench: 'subagents',
    load1: Number(loadavg()[0]?.toFixed(2)),
    childStartOverheadMs: Number(overheadMs.toFixed(3)),
    toolFactoryMs: Number(median(factoryTimes).toFixed(1)),
    childTaskMs: Number(median(childTimes).toFixed(3)),
    clientAloneMs: Number(median(clientTimes).toFixed(3)),
    oneChildMs: Number(median(ones).toFixed(1)),
    fourChildrenMs: Number(median(fours).toFixed(1)),
    parallelRatio: Number(parallelRatio.toFixed(3)),
    pass: overheadMs <= 5 && parallelRatio <= 1.3,
  }),
);
