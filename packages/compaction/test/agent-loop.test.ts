import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, replay } from '@spine/agent-loop';
import { createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import type { SessionEvent, ToolDefinition } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import {
  createScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedReply,
} from '@spine/test-utils';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CompactionEngineOptions,
  createCompactionEngine,
  createModelSummarizer,
  createRecallHistoryTool,
  createTokenMeter,
} from '../src/index.js';
import { filler } from './history.js';

const OVERFLOW: ScriptedReply = {
  error: {
    status: 400,
    body: JSON.stringify({
      error: {
        message:
          "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        code: 'invalid_request_error',
      },
    }),
  },
};
const SUMMARY =
  '### Primary Request and Intent\nList the notes.\n### Files and Code\nnotes/*.md\n### Errors and Fixes\nnone\n### Next Step\nanswer\n### Critical Context\nnone';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Answers summarisation requests with SUMMARY and agent requests from `agentReplies`, in order. */
function routed(agentReplies: ScriptedReply[], summaryDelayMs = 0) {
  const queue = [...agentReplies];
  return (request: { body: { messages?: { content?: string }[] } }): ScriptedReply => {
    const system = request.body.messages?.[0]?.content ?? '';
    if (system.startsWith('You write checkpoints')) {
      return { text: SUMMARY, chunkSize: 8, delayMs: summaryDelayMs };
    }
    return queue.shift() ?? { text: 'out of script' };
  };
}

async function setup(
  replies: ScriptedReply[] | ReturnType<typeof routed>,
  engineOptions: Partial<CompactionEngineOptions> = {},
  contextWindow = 1_000_000,
) {
  const workspace = mkdtempSync(join(tmpdir(), 'spine-compaction-ws-'));
  const sessions = mkdtempSync(join(tmpdir(), 'spine-compaction-log-'));
  const server: ScriptedModelServer = await createScriptedModelServer({ replies });
  const model = createOpenAICompatibleModel({
    baseUrl: server.baseUrl,
    apiKey: 'k',
    provider: 'deepseek',
    idleTimeoutMs: 3000,
  });
  const session = await Session.create({
    store: createJsonlStore({ dir: sessions, fsync: 'never' }),
    cwd: workspace,
  });
  const runtime = createToolRuntime({
    cwd: workspace,
    tools: [
      ...createWorkspaceTools({ cwd: workspace, sandboxBackend: null }),
      createRecallHistoryTool({ session }) as unknown as ToolDefinition<never>,
    ],
    approval: 'never-ask',
    sandboxBackend: null,
  });
  const meter = createTokenMeter();
  const summarizer = createModelSummarizer({ model, modelId: 'deepseek-v4-flash' });
  const engine = createCompactionEngine({ meter, summarizer, ...engineOptions });
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: runtime,
    compaction: engine,
    meter,
    contextWindow,
    retryPolicy: createRetryPolicy({ baseDelayMs: 5, maxDelayMs: 20, jitter: 0 }),
  });
  cleanups.push(async () => {
    await session.close().catch(() => undefined);
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(sessions, { recursive: true, force: true });
  });
  return { workspace, server, model, session, agent, engine };
}

function writes(count: number, delayMs = 0): ScriptedReply[] {
  return Array.from({ length: count }, (_, index) => ({
    ...(delayMs > 0 ? { delayMs, chunkSize: 4096 } : {}),
    toolCalls: [
      {
        id: `w${index}`,
        name: 'write',
        arguments: JSON.stringify({
          path: `notes/note-${index}.md`,
          content: `# Note ${index}\n${filler(300, index)}`,
        }),
      },
    ],
  }));
}

const types = (session: Session): string[] =>
  session.events().map((event: SessionEvent) => event.type);

describe('compaction inside the real agent loop', () => {
  it('overflow → compact (model summary) → retry, then recall_history restores a compacted result', async () => {
    const { session, agent, server, model } = await setup([
      ...writes(6),
      { text: 'six notes written' },
      OVERFLOW,
      { text: SUMMARY },
      {
        toolCalls: [
          {
            id: 'recall1',
            name: 'recall_history',
            arguments: JSON.stringify({ toolCallId: 'w2' }),
          },
        ],
      },
      { text: 'note 2 is about parsers' },
    ]);
    const first = await agent.run('Write six notes. Never delete notes/keep.md.');
    expect(first.error?.message).toBeUndefined();
    expect(first.reason).toBe('completed');
    const second = await agent.run('What was note 2 about?');
    expect(second).toMatchObject({ reason: 'completed', text: 'note 2 is about parsers' });

    const log = types(session);
    const start = log.indexOf('compaction/start');
    expect(log.slice(start, start + 4)).toEqual([
      'compaction/start',
      'compaction/summary',
      'user/message',
      'compaction/end',
    ]);
    const retry = session.events().find((event) => event.type === 'llm/retry');
    expect(retry?.body).toMatchObject({ compactionId: session.events()[start]?.seq });

    const retried = server.requests[9]?.body.messages as { role: string; content?: string }[];
    const checkpoint = retried.find((message) => message.content?.startsWith('<compacted-summary'));
    expect(checkpoint?.content).toContain('Never delete notes/keep.md.');
    expect(checkpoint?.content).toContain('### Primary Request and Intent');
    expect(checkpoint?.content).toContain('notes/note-2.md');
    expect(retried.filter((message) => message.content === 'What was note 2 about?')).toHaveLength(
      1,
    );

    const recalled = session
      .events()
      .find(
        (event) =>
          event.type === 'tool/result' &&
          (event.body as { toolCallId: string }).toolCallId === 'recall1',
      );
    expect((recalled as SessionEvent).body as { content: string }).toMatchObject({
      content: expect.any(String),
    });
    expect(((recalled as SessionEvent).body as { content: string }).content).toContain(
      '"path":"notes/note-2.md"',
    );
    const report = replay(session, { model });
    expect(report.ok).toBe(true);
  });

  it('compacts at pre-step under pressure between tool steps, never inside a batch', async () => {
    const { session, agent } = await setup(
      routed([...writes(12), { text: 'twelve notes written' }]),
      {},
      9000,
    );
    const result = await agent.run('Write twelve notes. Always keep the titles short.');
    expect(result).toMatchObject({ reason: 'completed', text: 'twelve notes written' });
    const starts = session.events().filter((event) => event.type === 'compaction/start');
    expect(starts.length).toBeGreaterThanOrEqual(1);
    for (const start of starts) {
      expect(start.body).toMatchObject({ reason: 'pressure' });
      const before = session.events({ to: start.seq - 1 });
      const proposed = new Set<string>();
      const answered = new Set<string>();
      for (const event of before) {
        if (event.type === 'assistant/message') {
          for (const part of (event.body as { content: { type: string; id?: string }[] }).content) {
            if (part.type === 'tool-call') proposed.add(part.id as string);
          }
        }
        if (event.type === 'tool/result')
          answered.add((event.body as { toolCallId: string }).toolCallId);
      }
      expect([...proposed].filter((id) => !answered.has(id))).toEqual([]);
    }
    expect(types(session)).toContain('compaction/end');
    const checkpoint = session
      .deriveMessages()
      .messages.find(
        (message) => message.role === 'user' && message.source === 'compact-checkpoint',
      );
    expect(checkpoint?.role === 'user' && checkpoint.content).toContain(
      'Always keep the titles short.',
    );
  });

  it('prepares a background candidate while the loop keeps working and commits it at the hard mark', async () => {
    const { session, agent, engine, server } = await setup(
      routed([...writes(22, 30), { text: 'twenty-two notes written' }], 5),
      { background: true, thresholds: { soft: 0.6, high: 0.8, low: 0.5 } },
      12_000,
    );
    const result = await agent.run('Write the notes. Keep every title under five words.');
    expect(result).toMatchObject({ reason: 'completed', text: 'twenty-two notes written' });
    await engine.whenIdle(session);
    const log = types(session);
    expect(log).toContain('compaction/candidate');
    const start = session.events().find((event) => event.type === 'compaction/start');
    expect(start?.body).toMatchObject({ mode: 'background', reason: 'pressure' });
    const modes = session
      .events()
      .filter((event) => event.type === 'compaction/start')
      .map((event) => (event.body as { mode: string }).mode);
    expect(modes.every((mode) => mode === 'background')).toBe(true);
    const summaries = server.requests.filter((request) =>
      String(request.body.messages?.[0]?.content).startsWith('You write checkpoints'),
    );
    expect(summaries.length).toBe(log.filter((type) => type === 'compaction/candidate').length);
    const checkpoint = session
      .deriveMessages()
      .messages.find(
        (message) => message.role === 'user' && message.source === 'compact-checkpoint',
      );
    expect(checkpoint?.role === 'user' && checkpoint.content).toContain(
      'Keep every title under five words.',
    );
    expect(checkpoint?.role === 'user' && checkpoint.content).toContain(
      '### Primary Request and Intent',
    );
  });

  it('calibrates the meter from the usage the loop records, to within 3 % of the next request', async () => {
    const { session, agent } = await setup([...writes(10), { text: 'ten notes written' }]);
    const result = await agent.run('Write ten notes.');
    expect(result.reason).toBe('completed');
    const headers = session.events().filter((event) => event.type === 'request/header');
    const usages = session.events().filter((event) => event.type === 'assistant/message');
    expect(headers).toHaveLength(11);
    const errors = headers.slice(2).map((header, index) => {
      const estimated = (header.body as { estimatedTokens: number }).estimatedTokens;
      const body = (usages[index + 2] as SessionEvent).body as {
        usage: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
      };
      const usage = body.usage;
      const reported = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
      return Math.abs(estimated - reported) / reported;
    });
    expect(Math.max(...errors)).toBeLessThanOrEqual(0.03);
  });

  it('fails the turn with a clear error on overflow when auto-compaction is disabled', async () => {
    const { session, agent } = await setup([OVERFLOW], { auto: false });
    const result = await agent.run('Too much context.');
    expect(result.reason).toBe('error');
    expect(result.error?.message).toContain('automatic compaction is disabled');
    expect(types(session)).not.toContain('compaction/start');
  });
});
