#!/usr/bin/env node
// One agent step of two checkouts of this repository, interleaved in one process: both trees'
// agents run against their own loopback model server, round by round (A then B, then B then A),
// each step followed by a raw undici POST of the identical body. A machine that slows down for a
// while (on a shared 2-core VM, whole processes run 20-50% slower for seconds) slows both trees
// in the same rounds, so the per-round ratio after ÷ before is far steadier than comparing
// figures from separate processes (scripts/bench-compare.mjs).
//
//   node scripts/bench-step-interleaved.mjs --before <dir> --after <dir> [--messages 100]
//     [--rounds 60] [--warmup 300] [--runs 1] [--chain off] [--snapshots off]
//
// Each tree needs `npm ci` and `npx turbo run build` (the trees' dist is imported). The setup is
// the step bench's (packages/agent-loop/bench/step-overhead.bench.ts): a session of `messages`
// ~1 KB messages (words with quotes, newlines and a non-ASCII letter: real text, where the step
// bench's are ASCII words), warm-up rounds on a separate session of the same size, then the
// measured rounds, no tools, the OpenAI-compatible client. Prints, per run and pooled over runs, each
// tree's step ÷ raw POST (median of per-round ratios) and the change of the step itself
// (median of per-round after ÷ before, with a 90% bootstrap interval); the last line is JSON.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrap90, median } from './lib/stats.mjs';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: '.' },
    messages: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '300' },
    runs: { type: 'string', default: '1' },
    chain: { type: 'string', default: 'on' },
    snapshots: { type: 'string', default: 'on' },
  },
});
if (!values.before) {
  console.error('usage: node scripts/bench-step-interleaved.mjs --before <dir> --after <dir>');
  process.exit(2);
}
const messages = Number(values.messages);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const runs = Number(values.runs);
for (const [name, value, least] of [
  ['messages', messages, 2],
  ['rounds', rounds, 1],
  ['warmup', warmup, 0],
  ['runs', runs, 1],
]) {
  if (!Number.isSafeInteger(value) || value < least) {
    console.error(`--${name} must be a whole number of at least ${least}`);
    process.exit(2);
  }
}
for (const dir of [values.before, values.after]) {
  if (!existsSync(join(resolve(dir), 'packages', 'agent-loop', 'dist', 'index.js'))) {
    console.error(`${dir}: no built packages; run \`npm ci && npx turbo run build\` there first`);
    process.exit(2);
  }
}

const REPLY = [
  'data: {"id":"b","object":"chat.completion.chunk","model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}\n\n',
  'data: {"id":"b","object":"chat.completion.chunk","model":"deepseek-v4-flash","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":10}}\n\n',
  'data: [DONE]\n\n',
].join('');

/** The packages of one tree, imported from its build output. */
async function loadTree(dir) {
  const dist = (name) => import(join(dir, 'packages', name, 'dist', 'index.js'));
  const [loop, log, llm, tools, undici] = await Promise.all([
    dist('agent-loop'),
    dist('session-log'),
    dist('llm'),
    dist('tool-runtime'),
    import(join(dir, 'node_modules', 'undici', 'index.js')),
  ]);
  // Each tree's own connection pool, for its client and its raw POSTs alike: undici keeps one
  // global dispatcher per process, which only one of the two trees' undici copies would own.
  return { loop, log, llm, tools, request: undici.request, dispatcher: new undici.Agent() };
}

function filler(seed) {
  const words = ['agent', 'session', 'surface', 'replay', 'request', 'token', 'prefix', 'cache'];
  let text = '';
  for (let i = 0; text.length < 1000; i++)
    text += `${words[(seed + i * 7) % words.length]}${(seed * 13 + i) % 101} "q" é\n`;
  return text;
}

async function startServer() {
  let last = '';
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      last = Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(REPLY);
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    lastBody: () => last,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** One tree's agent over a fresh session of `messages` messages; `round()` times one step. */
async function setup(tree) {
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'spine-interleaved-'));
  const session = await tree.log.Session.create({
    store: tree.log.createJsonlStore({
      dir,
      fsync: 'never',
      ...(values.chain === 'off' ? { chain: false } : {}),
    }),
    ...(values.snapshots === 'off' ? { snapshots: false } : {}),
  });
  for (let i = 0; i < messages; i++) {
    if (i % 2 === 0)
      session.append(
        'user/message',
        { content: filler(i), source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
    else
      session.append(
        'assistant/message',
        { content: [{ type: 'text', text: filler(i) }], finishReason: 'stop' },
        { surfaceOp: { op: 'append' } },
      );
  }
  const model = tree.llm.createOpenAICompatibleModel({
    baseUrl: server.url,
    apiKey: 'bench',
    provider: 'deepseek',
    dispatcher: tree.dispatcher,
  });
  const agent = tree.loop.createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: tree.tools.createToolRuntime({ cwd: dir, tools: [], sandboxBackend: null }),
    systemPrompt: new tree.loop.SystemPrompt('You are a benchmark agent.'),
  });
  async function round(label) {
    let started = performance.now();
    const result = await agent.run(label);
    const step = performance.now() - started;
    if (result.reason !== 'completed') throw new Error(`step failed: ${result.error?.message}`);
    started = performance.now();
    const response = await tree.request(`${server.url}/chat/completions`, {
      method: 'POST',
      dispatcher: tree.dispatcher,
      body: server.lastBody(),
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    });
    for await (const _chunk of response.body) {
      // read the stream to the end
    }
    return { step, raw: performance.now() - started };
  }
  async function close() {
    await session.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { round, close };
}

/** One run: warm-up on separate sessions, then `rounds` measured rounds, order alternating. */
async function run(trees) {
  if (warmup > 0) {
    const warm = [await setup(trees[0]), await setup(trees[1])];
    for (let i = 0; i < warmup; i++) {
      for (const k of i % 2 ? [1, 0] : [0, 1]) await warm[k].round(`warm-up ${i}`);
    }
    await Promise.all(warm.map((one) => one.close()));
  }
  const subject = [await setup(trees[0]), await setup(trees[1])];
  const perRound = [];
  for (let i = 0; i < rounds + 3; i++) {
    const got = [];
    for (const k of i % 2 ? [1, 0] : [0, 1]) got[k] = await subject[k].round(`question ${i}`);
    if (i >= 3) perRound.push(got);
  }
  await Promise.all(subject.map((one) => one.close()));
  return perRound;
}

const trees = [await loadTree(resolve(values.before)), await loadTree(resolve(values.after))];
const all = [];
const summaries = [];
function summary(list) {
  const ratio = (k) => median(list.map((r) => r[k].step / r[k].raw));
  const change = list.map((r) => r[1].step / r[0].step);
  const rawChange = list.map((r) => r[1].raw / r[0].raw);
  const [low, high] = bootstrap90([change], median, 0x9e3779b9);
  return {
    rounds: list.length,
    ratioBefore: Number(ratio(0).toFixed(3)),
    ratioAfter: Number(ratio(1).toFixed(3)),
    stepBeforeMs: Number(median(list.map((r) => r[0].step)).toFixed(3)),
    stepAfterMs: Number(median(list.map((r) => r[1].step)).toFixed(3)),
    stepChangePct: Number(((median(change) - 1) * 100).toFixed(2)),
    stepChange90: [Number(((low - 1) * 100).toFixed(2)), Number(((high - 1) * 100).toFixed(2))],
    rawChangePct: Number(((median(rawChange) - 1) * 100).toFixed(2)),
  };
}
for (let i = 0; i < runs; i++) {
  const list = await run(trees);
  all.push(...list);
  const one = summary(list);
  summaries.push(one);
  console.log(`run ${i + 1}/${runs}: ${JSON.stringify(one)}`);
}
console.log(
  JSON.stringify({
    bench: 'agent-loop/step-interleaved',
    messages,
    chain: values.chain,
    snapshots: values.snapshots,
    pooled: summary(all),
    runs: summaries,
  }),
);
