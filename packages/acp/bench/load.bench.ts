// `session/load` of long sessions (2,000 and 10,000 events, generated here: tool-calling turns;
// after a warm-up on 200) served in-process to the SDK's client, which counts the updates and
// keeps none. Reports the time to the load's response, the updates and bytes sent, and the heap and RSS growth sampled during
// the load (the log is streamed from the store; only open tool calls are held).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { agentProjections, loadConfig } from '@spine/harness';
import { createJsonlStore, Session } from '@spine/session-log';
import { serveAcp } from '../src/index.js';

async function generate(dir: string, id: string, cwd: string, events: number): Promise<number> {
  const session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'never' }),
    id,
    cwd,
    model: 'openai-compatible/deepseek-v4-flash',
    projections: await agentProjections(),
  });
  const surface = { surfaceOp: { op: 'append' as const } };
  let turn = 0;
  while (session.lastSeq < events - 12) {
    turn++;
    const call = {
      type: 'tool-call',
      id: `call_${turn}`,
      name: 'edit',
      arguments: JSON.stringify({
        path: `src/m${turn % 97}.ts`,
        edits: [{ oldText: 'a', newText: 'b' }],
      }),
    };
    session.append('turn/start', {}, { turn });
    session.append(
      'user/message',
      { content: `Fix module ${turn % 97}.`, source: 'user' },
      { turn, ...surface },
    );
    session.append('step/start', {}, { turn, step: 1 });
    session.append(
      'assistant/message',
      { content: [{ type: 'reasoning', text: 'Looking.' }, call], finishReason: 'tool-calls' },
      { turn, step: 1, ...surface },
    );
    session.append(
      'tool/started',
      { toolCallId: call.id, toolName: 'edit', arguments: call.arguments },
      { turn, step: 1 },
    );
    session.append(
      'tool/result',
      { toolCallId: call.id, toolName: 'edit', content: 'Edited.', isError: false },
      { turn, step: 1, ...surface },
    );
    session.append('step/end', {}, { turn, step: 1 });
    session.append('step/start', {}, { turn, step: 2 });
    session.append(
      'assistant/message',
      {
        content: [{ type: 'text', text: `Module ${turn % 97} fixed.` }],
        finishReason: 'stop',
        usage: { inputTokens: 10, cacheReadTokens: 90, cacheWriteTokens: 0, outputTokens: 8 },
      },
      { turn, step: 2, ...surface },
    );
    session.append('step/end', {}, { turn, step: 2 });
    session.append('turn/end', { reason: 'completed', steps: 2 }, { turn, step: 2 });
    session.checkpoint();
    if (turn % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await session.close();
  return session.lastSeq;
}

interface LoadFigures {
  events: number;
  loadMs: number;
  updates: number;
  updateBytes: number;
  heapGrowthMb: number;
  rssGrowthMb: number;
}

async function measure(events: number): Promise<LoadFigures> {
  const root = mkdtempSync(join(tmpdir(), 'spine-acp-bench-'));
  try {
    const dir = join(root, 'sessions');
    const id = `bench-${events}`;
    const written = await generate(dir, id, root, events);
    const { config } = loadConfig({
      cwd: root,
      env: { ...process.env, OPENAI_API_KEY: 'unused', SPINE_CONFIG_HOME: join(root, 'home') },
      flags: {
        model: 'openai-compatible/deepseek-v4-flash',
        baseUrl: 'http://127.0.0.1:9',
        sessionDir: dir,
      },
    });
    const toAgent = new TransformStream();
    const toClient = new TransformStream();
    const server = await serveAcp(
      { readable: toAgent.readable, writable: toClient.writable },
      { version: 'bench', config: () => config, lsp: false, web: false },
    );
    let updates = 0;
    let bytes = 0;
    const client = acp
      .client()
      .onNotification('session/update', ({ params }) => {
        updates++;
        bytes += JSON.stringify(params).length;
      })
      .connect({ readable: toClient.readable, writable: toAgent.writable });
    await client.agent.request('initialize', { protocolVersion: 1 });
    (globalThis as { gc?: () => void }).gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage.rss();
    let heapPeak = heapBefore;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    }, 5);
    const started = performance.now();
    await client.agent.request('session/load', { sessionId: id, cwd: root, mcpServers: [] });
    const ms = performance.now() - started;
    clearInterval(sampler);
    await client.agent.request('session/close', { sessionId: id });
    await server.close();
    return {
      events: written,
      loadMs: Math.round(ms),
      updates,
      updateBytes: bytes,
      heapGrowthMb: Number(((heapPeak - heapBefore) / 2 ** 20).toFixed(1)),
      rssGrowthMb: Number(((rssPeak - rssBefore) / 2 ** 20).toFixed(1)),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// Warm-up: the harness loads its modules on the first session (not what a load costs).
await measure(200);
const small = await measure(2_000);
const large = await measure(10_000);
console.log(`2k: ${JSON.stringify(small)}`);
console.log(`10k: ${JSON.stringify(large)}`);
console.log(
  JSON.stringify({ bench: 'acp session/load', small, large, pass: large.updates > small.updates }),
);
