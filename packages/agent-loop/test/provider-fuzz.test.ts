// Property-based fuzzing of the provider boundary: generated answers in the three wire formats
// the llm package speaks (OpenAI-compatible / DeepSeek chat-completions SSE, Anthropic Messages
// SSE, and whole `chat.completion` JSON bodies), served byte for byte by a loopback server and
// run through the real client and the real agent loop. Invariants: every run ends with
// `turn/end` (success, or a classified model error), nothing throws out of the loop, every tool
// call has a result, ids are unique in the session, content arrives intact, and the log passes
// replay verification. Failures shrink to a minimal stream (fast-check).
import { tmpdir } from 'node:os';
import { createAnthropicModel, createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import type {
  AssistantMessageBody,
  ModelClient,
  SessionEvent,
  ToolDefinition,
  ToolResultBody,
} from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import { type LoopbackServer, startSseServer } from '@spine/test-utils';
import { createToolRuntime, defineTool } from '@spine/tool-runtime';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, replay, SystemPrompt, type TurnEndBody } from '../src/index.js';
import { ANTHROPIC_CASE, anthropicSse, expectedAnthropic } from './fuzz/anthropic-streams.js';
import {
  type Expected,
  expectedOpenAI,
  OPENAI_CASE,
  openAIJson,
  openAISse,
} from './fuzz/openai-streams.js';

/** Generated streams per format (the issue asks for at least 2,000). */
const RUNS = Number(process.env.SPINE_FUZZ_RUNS ?? 2_000);

/** Codes a turn may end with on a provider failure (the CLI maps each to exit 3). */
const MODEL_FAILURE_CODES = new Set([
  'RATE_LIMITED',
  'OVERLOADED',
  'SERVER_ERROR',
  'NETWORK_ERROR',
  'STREAM_BROKEN',
  'STREAM_IDLE',
  'REQUEST_TIMEOUT',
  'AUTH_FAILED',
  'INSUFFICIENT_BALANCE',
  'INVALID_REQUEST',
  'CONTEXT_OVERFLOW',
  'COMPACTION_FAILED',
  'COMPACTION_DISABLED',
  'MODEL_NOT_FOUND',
]);

const echoTool = defineTool({
  name: 'echo',
  description: 'Returns its arguments.',
  parameters: z.object({}).passthrough(),
  isConcurrencySafe: true,
  async execute(args) {
    return { content: JSON.stringify(args) };
  },
}) as unknown as ToolDefinition<never>;

const runtime = createToolRuntime({
  cwd: tmpdir(),
  tools: [echoTool],
  approval: 'never-ask',
  sandboxBackend: null,
});
const prompt = new SystemPrompt('You are fuzzed.');
const retryPolicy = createRetryPolicy({ maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0, jitter: 0 });

/** The bytes the loopback server answers every request with, for the run in progress. */
let answer: Buffer[] = [];
let servers: LoopbackServer[] = [];
let contentType = 'text/event-stream';

beforeAll(async () => {
  const handler = (_request: unknown, response: import('node:http').ServerResponse): void => {
    response.writeHead(200, { 'content-type': contentType });
    for (const piece of answer) response.write(piece);
    response.end();
  };
  servers = [await startSseServer(handler)];
});
afterAll(async () => {
  for (const server of servers) await server.close();
});

function lastAssistant(events: readonly SessionEvent[]): AssistantMessageBody | undefined {
  return events.find((event) => event.type === 'assistant/message')?.body as
    | AssistantMessageBody
    | undefined;
}

/** Runs one generated answer through the agent loop and checks every invariant. */
async function check(
  model: ModelClient,
  bytes: Buffer[],
  expected: Expected,
  type = 'text/event-stream',
): Promise<void> {
  answer = bytes;
  contentType = type;
  const session = await Session.create({ store: createMemoryStore(), cwd: tmpdir() });
  const agent = createAgent({
    session,
    model,
    modelId: 'fuzz-model',
    tools: runtime,
    systemPrompt: prompt,
    retryPolicy,
    // Two steps: a second answer with the same ids exercises session-wide uniqueness.
    maxSteps: 2,
  });
  const result = await agent.run('go');
  const events = session.events();
  const end = events.at(-1);
  expect(end?.type).toBe('turn/end');
  const body = end?.body as TurnEndBody;
  if (expected.fails) {
    expect(body.reason).toBe('error');
    expect(MODEL_FAILURE_CODES.has(body.error?.code ?? '')).toBe(true);
  } else {
    if (body.reason === 'error') throw new Error(`unexpected failure: ${body.error?.message}`);
    expect(['completed', 'max-steps']).toContain(result.reason);
    const message = lastAssistant(events);
    const parts = message?.content ?? [];
    const text = parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    const reasoning = parts.map((part) => (part.type === 'reasoning' ? part.text : '')).join('');
    expect(text).toBe(expected.text);
    expect(reasoning).toBe(expected.reasoning);
    const calls = parts.filter((part) => part.type === 'tool-call');
    expect(calls.map((call) => [call.name, call.arguments])).toEqual(
      expected.calls.map((call) => [call.name, call.arguments]),
    );
    const seen = new Set<string>();
    calls.forEach((call, i) => {
      const original = expected.calls[i]?.providerId;
      if (original === undefined || original === '') expect(call.providerId).toBe('');
      else if (seen.has(original)) expect(call.providerId).toBe(original);
      else expect([call.id, call.providerId]).toEqual([original, undefined]);
      seen.add(original ?? '');
    });
  }
  const ids: string[] = [];
  for (const event of events) {
    if (event.type !== 'assistant/message') continue;
    for (const part of (event.body as AssistantMessageBody).content)
      if (part.type === 'tool-call') ids.push(part.id);
  }
  expect(ids.every((id) => id !== '')).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  const answered = events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.body as ToolResultBody).toolCallId);
  expect(answered).toEqual(ids);
  const report = replay(session, { model });
  expect(report.ok).toBe(true);
}

const options = { numRuns: RUNS, endOnFailure: false };

describe('fuzzed provider answers through the real client and agent loop', {
  timeout: 300_000,
}, () => {
  it(`OpenAI-compatible chat-completions SSE (${RUNS} streams)`, async () => {
    const model = createOpenAICompatibleModel({
      baseUrl: servers[0]!.baseUrl,
      apiKey: 'k',
      provider: 'deepseek',
      idleTimeoutMs: 10_000,
    });
    // One in eight servers answers a streaming request with a whole JSON body anyway.
    const asJson = fc.oneof(
      { weight: 7, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    );
    await fc.assert(
      fc.asyncProperty(OPENAI_CASE, asJson, (c, json) =>
        json
          ? check(model, openAIJson(c), expectedOpenAI(c, true), 'application/json')
          : check(model, openAISse(c), expectedOpenAI(c, false)),
      ),
      options,
    );
  });

  it(`Anthropic Messages SSE (${RUNS} streams)`, async () => {
    const model = createAnthropicModel({
      baseUrl: servers[0]!.baseUrl,
      apiKey: 'k',
      idleTimeoutMs: 10_000,
    });
    await fc.assert(
      fc.asyncProperty(ANTHROPIC_CASE, (c) => check(model, anthropicSse(c), expectedAnthropic(c))),
      options,
    );
  });

  it(`whole chat.completion JSON bodies (${RUNS} bodies)`, async () => {
    const model = createOpenAICompatibleModel({
      baseUrl: servers[0]!.baseUrl,
      apiKey: 'k',
      provider: 'openai-compatible',
      stream: false,
    });
    await fc.assert(
      fc.asyncProperty(OPENAI_CASE, (c) =>
        check(model, openAIJson(c), expectedOpenAI(c, true), 'application/json'),
      ),
      options,
    );
  });
});
