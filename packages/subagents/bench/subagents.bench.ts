// Subagent figures against a loopback OpenAI-compatible server, measured in one run:
// 1. Child start overhead: from the `task` call to the child's first request reaching the model
//    client (start event in the parent, child session create, prompt assembly, request built and
//    recorded), against the same span for a plain agent: a fresh JSONL session in the same store,
//    `createAgent` from @spine/agent-loop on it with the child's system prompt, tools and model,
//    `run` on the same prompt until its first request reaches the same client. That is the work
//    any agent does before its first request, so the ratio is what the subagent machinery adds.
//    The three sides (child, plain agent, model client alone) are interleaved round by round
//    (scripts/lib/bench-interleave.ts) and the per-round ratio is judged on its 90% interval.
//    Target ≤ 2× the plain start. The machinery adds, by design, one synced write (the parent's
//    start event, flushed so crash recovery always finds the child) to the two a plain start
//    makes (the new session's header file and folder), plus the task call's planning: 1.32–1.42×
//    at load 3–5, 1.2–1.55× at load 5–9 (the interval's upper end up to 1.75). 2× leaves room
//    for that spread and fails once the machinery costs as much as the agent start itself (a
//    child tool runtime built per call costs 25–80 ms, over 5×). Reported too: both starts in ms,
//    and the whole call (the child answers in one model call) minus the model client alone.
// 2. Parallel read-only children: four `explore` children (each: one read, then an answer, so
//    two model calls) run by the real tool scheduler against a server that waits 200 ms before
//    every answer, versus one such child. Target ≤ 1.3×. The same with grep is reported too.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, SystemPrompt } from '@spine/agent-loop';
import { createOpenAICompatibleModel } from '@spine/llm';
import type {
  ModelClient,
  ModelRequest,
  SandboxMode,
  SessionStore,
  ToolCallPart,
  ToolExecutionContext,
} from '@spine/protocol';
import { createJsonlStore, type FsyncPolicy, Session } from '@spine/session-log';
import { createToolRuntime, createWorkspaceTools, type ToolRuntime } from '@spine/tool-runtime';
import {
  interleave,
  median,
  medianInterval,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import {
  createTaskTool,
  EXPLORE_PROFILE,
  type TaskArguments,
  type TaskToolOptions,
} from '../src/index.js';

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

/**
 * The caller's child-tools factory, caching one runtime per tool set and mode: building a tool
 * runtime (zod → JSON Schema, ajv compilation) is the caller's work, timed separately below, and
 * children of one profile share a runtime built once.
 */
function cachedChildTools(workspace: string): TaskToolOptions['createTools'] {
  const built = new Map<string, ToolRuntime>();
  return (request) => {
    const key = `${request.sandbox}:${request.tools.join(',')}`;
    let runtime = built.get(key);
    if (!runtime) {
      runtime = buildChildTools(workspace, request.tools, request.sandbox);
      built.set(key, runtime);
    }
    return runtime;
  };
}

/** A parent with the read-only workspace tools and the task tool, over a JSONL store. */
async function parentWith(
  model: ModelClient,
  dir: string,
  workspace: string,
  options: { createTools?: TaskToolOptions['createTools']; fsync?: FsyncPolicy } = {},
) {
  const store = createJsonlStore({ dir, fsync: options.fsync ?? 'never' });
  const session = await Session.create({ store, cwd: workspace });
  const runtime = createToolRuntime({
    cwd: workspace,
    tools: createWorkspaceTools({ cwd: workspace, sandboxBackend: null }),
    approval: 'never-ask',
    sandboxBackend: null,
  });
  const task = createTaskTool({
    session,
    store,
    tools: runtime,
    sandbox: 'workspace-write',
    model: { model, modelId: 'deepseek-v4-flash' },
    profiles: [EXPLORE_PROFILE],
    createTools: options.createTools ?? cachedChildTools(workspace),
  });
  runtime.register(task);
  return { session, store, runtime, task };
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
// The model of the child and of the plain agent: the same client, noting when a first request is
// handed to it.
let streamCalledAt = 0;
let requestChars = 0;
const markedModel: ModelClient = {
  specificationVersion: 1,
  provider: fastModel.provider,
  stream(request, options) {
    streamCalledAt = performance.now();
    requestChars = JSON.stringify(request).length;
    return fastModel.stream(request, options);
  },
};
const childTools = cachedChildTools(workspace);
// The store as the harness ships it (fsync `per-turn`): a new session's header is synced (file
// and folder) for the child and the plain agent alike, and the task tool's link to the child (the
// parent's start event) is synced before the child exists, under any policy. With `never` the
// plain start would do no disk sync and the child one, and the ratio would weigh the disk against
// the CPU rather than the machinery against an agent start.
const parent = await parentWith(markedModel, join(root, 's1'), workspace, {
  createTools: childTools,
  fsync: 'per-turn',
});
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
/** The child's tools as the task tool asks for them: the profile's within the parent's, read-only. */
const plainTools = await childTools({
  toolCallId: '',
  profile: EXPLORE_PROFILE,
  description: args.description,
  depth: 1,
  sandbox: 'read-only',
  sessionId: '',
  tools: specs.map((spec) => spec.name),
  session: parent.session,
});
/** Whole-call times of the round in progress (each side returns its start). */
const whole = { child: 0, plain: 0 };
/** The size of each side's first request: the same prompt, so the same size (checked below). */
const firstRequestChars = { child: 0, plain: 0 };
let callIndex = 0;
/** The whole task call; returns the part before the child's first request reaches the client. */
async function childStart(): Promise<number> {
  const start = performance.now();
  const output = await parent.task.execute(args, context(`call_${callIndex++}`));
  if (output.isError) throw new Error(`child failed: ${output.content}`);
  whole.child = performance.now() - start;
  firstRequestChars.child = requestChars;
  return streamCalledAt - start;
}
/**
 * The baseline, the work a child must do anyway: a fresh session in the same store, a plain agent
 * on it with the child's system prompt, tools and model, run on the same prompt until its first
 * request reaches the client (then it answers and the session closes, as the child's does).
 */
async function plainStart(store: SessionStore): Promise<number> {
  const start = performance.now();
  const session = await Session.create({
    store,
    cwd: workspace,
    title: args.description,
    model: 'deepseek-v4-flash',
  });
  const agent = createAgent({
    session,
    model: markedModel,
    modelId: 'deepseek-v4-flash',
    contextWindow: 128_000,
    tools: plainTools,
    systemPrompt: new SystemPrompt(EXPLORE_PROFILE.prompt),
    maxSteps: 50,
  });
  const result = await agent.run(args.prompt);
  await session.close();
  if (result.reason !== 'completed') throw new Error(`plain agent: ${result.reason}`);
  whole.plain = performance.now() - start;
  firstRequestChars.plain = requestChars;
  return streamCalledAt - start;
}
/** The model client alone streaming the child's request. */
async function clientCall(): Promise<number> {
  const start = performance.now();
  for await (const event of fastModel.stream(direct)) void event;
  return performance.now() - start;
}
/** See the file's header for why 2×. */
const CHILD_START_TARGET = 2;
const wholeTimes = { child: [] as number[], plain: [] as number[] };
const startRounds = 150;
const startSamples = await interleave({
  sides: {
    child: childStart,
    plain: () => plainStart(parent.store),
    client: clientCall,
  },
  rounds: startRounds,
  warmup: 100,
  gc: false,
  onRound: () => {
    wholeTimes.child.push(whole.child);
    wholeTimes.plain.push(whole.plain);
  },
});
if (firstRequestChars.child !== firstRequestChars.plain)
  throw new Error(`first requests differ: ${JSON.stringify(firstRequestChars)} characters`);
const startCheck = ratioCheck(
  startSamples,
  'child',
  'plain',
  { atMost: CHILD_START_TARGET },
  { name: 'child start ÷ plain agent start' },
);
const startMs = median(startSamples.child);
const plainStartMs = median(startSamples.plain);
// Everything the whole call adds to one model call (also closing the child, the end event, the
// result), per round.
const overheads = wholeTimes.child.map((time, round) => time - startSamples.client[round]!);
const overheadMs = median(overheads);
const interval = (values: number[]): [number, number] =>
  medianInterval(values).map((value) => Number(value.toFixed(3))) as [number, number];
console.log(
  `child start: ${startMs.toFixed(2)} ms [${interval(startSamples.child).join(', ')}] before the child's first request, plain agent ${plainStartMs.toFixed(2)} ms [${interval(startSamples.plain).join(', ')}], ratio ${startCheck.figure} [${startCheck.interval.join(', ')}]; whole task call ${median(wholeTimes.child).toFixed(2)} ms, client alone ${median(startSamples.client).toFixed(2)} ms, so ${overheadMs.toFixed(2)} ms beyond the model call (medians of ${startRounds} interleaved rounds)`,
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

printReport({
  bench: 'subagents',
  checks: [startCheck, withRead.check],
  figures: {
    load1: Number(loadavg()[0]?.toFixed(2)),
    childStartMs: Number(startMs.toFixed(3)),
    childStartMs90: interval(startSamples.child),
    plainAgentStartMs: Number(plainStartMs.toFixed(3)),
    plainAgentStartMs90: interval(startSamples.plain),
    childStartRatio: startCheck.figure,
    childStartRatio90: startCheck.interval,
    childCallOverheadMs: Number(overheadMs.toFixed(3)),
    childCallOverheadMs90: interval(overheads),
    toolFactoryMs: Number(median(factoryTimes).toFixed(1)),
    childTaskMs: Number(median(wholeTimes.child).toFixed(3)),
    plainAgentTaskMs: Number(median(wholeTimes.plain).toFixed(3)),
    clientAloneMs: Number(median(startSamples.client).toFixed(3)),
    oneChildMs: Number(withRead.one.toFixed(1)),
    fourChildrenMs: Number(withRead.four.toFixed(1)),
    parallelRatio: withRead.check.figure,
    parallelRatio90: withRead.check.interval,
    parallelRatioGrep: withGrep.check.figure,
    parallelRatioGrep90: withGrep.check.interval,
  },
});
