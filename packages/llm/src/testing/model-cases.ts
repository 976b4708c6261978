// The ModelClient conformance cases: each drives a client against a scripted loopback server
// that speaks the real wire formats (OpenAI-compatible chat completions and Anthropic Messages).
import {
  isModelError,
  type ModelClient,
  type ModelErrorCode,
  type ModelRequest,
  type ModelStreamEvent,
  textOf,
  toolCallsOf,
} from '@spine/protocol';
import { type ConformanceCase, ConformanceFailure, describeError, ensure, show } from './kit.js';
import { createScriptedModelServer } from './scripted-model-server.js';
import type { ScriptedReply } from './scripted-reply.js';

/** What the ModelClient kit needs: a way to make the client under test for a server address. */
export interface ModelClientFixture {
  /**
   * Makes a fresh client that sends its requests to `baseUrl`, a loopback server answering
   * `POST <baseUrl>/chat/completions` (OpenAI-compatible SSE) and `POST <baseUrl>/messages`
   * (Anthropic Messages SSE). Keep its idle timeout short-ish (a few seconds at most).
   */
  client(baseUrl: string): ModelClient;
  /** The model id the cases put in requests (default `conformance-model`). */
  model?: string;
}

type Finish = Extract<ModelStreamEvent, { type: 'finish' }>;

function requestFor(fixture: ModelClientFixture): ModelRequest {
  return {
    model: fixture.model ?? 'conformance-model',
    system: 'Be terse.',
    messages: [{ role: 'user', content: 'Say something.' }],
    tools: [],
  };
}

/** Starts a server with `replies`, runs `body` with a fresh client, closes the server. */
async function withServer(
  fixture: ModelClientFixture,
  replies: ScriptedReply[],
  body: (client: ModelClient, requestCount: () => number) => Promise<void>,
): Promise<void> {
  const server = await createScriptedModelServer({ replies });
  try {
    await body(fixture.client(server.baseUrl), () => server.requests.length);
  } finally {
    await server.close();
  }
}

/** Streams to the end; a throw becomes a failure naming what was streamed. */
async function streamAll(
  client: ModelClient,
  request: ModelRequest,
  what: string,
): Promise<{ events: ModelStreamEvent[]; finish: Finish }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of client.stream(request)) events.push(event);
  } catch (error) {
    ensure(false, `${what}: expected the stream to finish, but it ${describeError(error)}`);
  }
  const finishes = events.filter((event) => event.type === 'finish');
  ensure(
    finishes.length === 1,
    `${what}: expected exactly one finish event, got ${finishes.length}`,
  );
  const last = events.at(-1);
  ensure(
    last?.type === 'finish',
    `${what}: expected finish to be the last event, got ${last?.type}`,
  );
  return { events, finish: last };
}

/** Streams expecting a ModelError; returns it with the events seen before. */
async function streamError(
  client: ModelClient,
  request: ModelRequest,
  what: string,
  signal?: AbortSignal,
  onEvent?: (event: ModelStreamEvent) => void,
): Promise<{ error: unknown; events: ModelStreamEvent[] }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of client.stream(request, signal ? { signal } : {})) {
      events.push(event);
      onEvent?.(event);
    }
  } catch (error) {
    return { error, events };
  }
  throw new ConformanceFailure(
    `${what}: expected the stream to throw a ModelError, but it finished (${events.length} events)`,
  );
}

function expectModelError(
  error: unknown,
  code: ModelErrorCode,
  retryable: boolean | undefined,
  what: string,
): void {
  ensure(
    isModelError(error),
    `${what}: expected a ModelError with code ${code}, but it ${describeError(error)}`,
  );
  ensure(
    error.code === code,
    `${what}: expected code ${code}, got ${error.code} (${error.message})`,
  );
  if (retryable !== undefined) {
    ensure(
      error.retryable === retryable,
      `${what}: expected retryable ${retryable} for ${code}, got ${error.retryable}`,
    );
  }
}

function joined(events: ModelStreamEvent[], type: 'text-delta' | 'reasoning-delta'): string {
  return events.map((event) => (event.type === type ? event.text : '')).join('');
}

function httpErrorCase(
  status: number,
  body: string,
  code: ModelErrorCode,
  retryable: boolean,
  label: string,
  headers?: Record<string, string>,
): ConformanceCase<ModelClientFixture> {
  return {
    name: `classifies HTTP ${status} ${label} as ${code} (retryable ${retryable})`,
    run: (fixture) =>
      withServer(fixture, [{ error: { status, body, headers } }], async (client, count) => {
        const what = `HTTP ${status} ${label}`;
        const { error } = await streamError(client, requestFor(fixture), what);
        expectModelError(error, code, retryable, what);
        const after = headers?.['retry-after'];
        if (after !== undefined && isModelError(error)) {
          ensure(
            error.retryAfterMs === Number(after) * 1000,
            `${what}: expected retryAfterMs ${Number(after) * 1000} from Retry-After, got ${show(error.retryAfterMs)}`,
          );
        }
        ensure(count() === 1, `${what}: expected one request (no retries), got ${count()}`);
      }),
  };
}

const text = 'Streaming works, piece by piece, across many small deltas.';
const argsA = '{"path":"src/a.ts","limit":20,"note":"split \\u00e9 here"}';
const argsB = '{"path":"."}';

/** The ModelClient cases, in run order. */
export const modelClientCases: readonly ConformanceCase<ModelClientFixture>[] = [
  {
    name: 'streams text as deltas, then exactly one finish whose message holds the same text',
    run: (fixture) =>
      withServer(fixture, [{ text, chunkSize: 4 }], async (client) => {
        const { events, finish } = await streamAll(client, requestFor(fixture), 'text reply');
        const deltas = events.filter((event) => event.type === 'text-delta').length;
        ensure(deltas >= 2, `text reply: expected several text-delta events, got ${deltas}`);
        ensure(
          joined(events, 'text-delta') === text,
          `text reply: expected the deltas to join to ${show(text)}, got ${show(joined(events, 'text-delta'))}`,
        );
        const final = textOf(finish.message);
        ensure(
          final === text,
          `text reply: finish message text is ${show(final)}, expected ${show(text)}`,
        );
        ensure(
          finish.finishReason === 'stop',
          `text reply: expected finishReason "stop", got ${show(finish.finishReason)}`,
        );
      }),
  },
  {
    name: 'streams reasoning as reasoning-delta events apart from the answer text',
    run: (fixture) =>
      withServer(
        fixture,
        [{ reasoning: 'First think it through.', text: 'Then answer.', chunkSize: 5 }],
        async (client) => {
          const { events, finish } = await streamAll(
            client,
            requestFor(fixture),
            'reasoning reply',
          );
          const reasoning = joined(events, 'reasoning-delta');
          ensure(
            reasoning === 'First think it through.',
            `reasoning reply: expected reasoning deltas to join to "First think it through.", got ${show(reasoning)}`,
          );
          ensure(
            textOf(finish.message) === 'Then answer.',
            `reasoning reply: expected the answer text "Then answer." without reasoning, got ${show(textOf(finish.message))}`,
          );
          const part = finish.message.content.find((p) => p.type === 'reasoning');
          ensure(
            part !== undefined,
            'reasoning reply: expected a reasoning part in the finish message',
          );
        },
      ),
  },
  {
    name: 'assembles tool calls whose arguments arrive split across many deltas',
    run: (fixture) =>
      withServer(
        fixture,
        [
          {
            toolCalls: [
              { id: 'call_a', name: 'read', arguments: argsA },
              { id: 'call_b', name: 'ls', arguments: argsB },
            ],
            chunkSize: 3,
          },
        ],
        async (client) => {
          const { events, finish } = await streamAll(client, requestFor(fixture), 'tool calls');
          const starts = events.filter((e) => e.type === 'tool-call-start');
          ensure(
            starts.length === 2 && starts[0]?.name === 'read' && starts[1]?.name === 'ls',
            `tool calls: expected tool-call-start for read then ls, got ${show(starts)}`,
          );
          for (const [i, expected] of [argsA, argsB].entries()) {
            const index = starts[i]?.index;
            const deltas = events
              .map((e) =>
                e.type === 'tool-call-delta' && e.index === index ? e.argumentsDelta : '',
              )
              .join('');
            ensure(
              deltas === expected,
              `tool calls: deltas of call ${i} join to ${show(deltas)}, expected ${show(expected)}`,
            );
          }
          const calls = toolCallsOf(finish.message).map((c) => [c.id, c.name, c.arguments]);
          const want = [
            ['call_a', 'read', argsA],
            ['call_b', 'ls', argsB],
          ];
          ensure(
            JSON.stringify(calls) === JSON.stringify(want),
            `tool calls: expected finish message calls ${show(want)}, got ${show(calls)}`,
          );
          ensure(
            finish.finishReason === 'tool-calls',
            `tool calls: expected finishReason "tool-calls", got ${show(finish.finishReason)}`,
          );
        },
      ),
  },
  {
    name: 'reports the usage the provider sent on the finish event',
    run: (fixture) =>
      withServer(
        fixture,
        [{ text: 'Counted.', usage: { promptTokens: 1234, completionTokens: 56 } }],
        async (client) => {
          const { finish } = await streamAll(client, requestFor(fixture), 'usage');
          const usage = finish.usage;
          ensure(usage !== undefined, 'usage: expected finish.usage, got undefined');
          const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
          ensure(prompt === 1234, `usage: expected 1234 prompt tokens in all, got ${show(usage)}`);
          ensure(
            usage.outputTokens === 56,
            `usage: expected outputTokens 56, got ${show(usage.outputTokens)}`,
          );
        },
      ),
  },
  {
    name: 'maps a provider\'s output-limit stop to finishReason "length"',
    run: (fixture) =>
      withServer(fixture, [{ text: 'Cut off mid', finishReason: 'length' }], async (client) => {
        const { finish } = await streamAll(client, requestFor(fixture), 'length stop');
        ensure(
          finish.finishReason === 'length',
          `length stop: expected finishReason "length", got ${show(finish.finishReason)}`,
        );
      }),
  },
  {
    name: 'stops with an ABORTED ModelError when the signal fires mid-stream',
    run: (fixture) =>
      withServer(fixture, [{ stallAfterChunks: 2 }], async (client) => {
        const controller = new AbortController();
        const { error, events } = await streamError(
          client,
          requestFor(fixture),
          'abort mid-stream',
          controller.signal,
          (event) => {
            if (event.type === 'text-delta') controller.abort();
          },
        );
        ensure(
          events.some((e) => e.type === 'text-delta'),
          'abort mid-stream: expected at least one text-delta before the abort',
        );
        expectModelError(error, 'ABORTED', false, 'abort mid-stream');
      }),
  },
  {
    name: 'sends nothing and fails with ABORTED when the signal is already aborted',
    run: (fixture) =>
      withServer(fixture, [{ text: 'never' }], async (client, count) => {
        const controller = new AbortController();
        controller.abort();
        const what = 'pre-aborted signal';
        const { error } = await streamError(client, requestFor(fixture), what, controller.signal);
        expectModelError(error, 'ABORTED', undefined, what);
        ensure(count() === 0, `${what}: expected no request to reach the server, got ${count()}`);
      }),
  },
  httpErrorCase(
    429,
    '{"error":{"type":"rate_limit_error","message":"slow down"}}',
    'RATE_LIMITED',
    true,
    'with Retry-After',
    { 'retry-after': '2' },
  ),
  httpErrorCase(
    500,
    '{"error":{"type":"server_error","message":"boom"}}',
    'SERVER_ERROR',
    true,
    'server error',
  ),
  httpErrorCase(
    401,
    '{"error":{"type":"authentication_error","message":"invalid api key"}}',
    'AUTH_FAILED',
    false,
    'bad key',
  ),
  httpErrorCase(
    400,
    '{"error":{"type":"invalid_request_error","message":"prompt is too long: 300000 tokens > 200000 maximum"}}',
    'CONTEXT_OVERFLOW',
    false,
    'context overflow',
  ),
  {
    name: 'fails with a retryable STREAM_BROKEN when a data line is not JSON, never skipping it',
    run: (fixture) =>
      withServer(fixture, [{ text, chunkSize: 8, malformedAt: 3 }], async (client) => {
        const what = 'data line that is not JSON';
        const { error, events } = await streamError(client, requestFor(fixture), what);
        expectModelError(error, 'STREAM_BROKEN', true, what);
        ensure(
          !events.some((event) => event.type === 'finish'),
          `${what}: expected no finish event before the error`,
        );
      }),
  },
  {
    name: 'reports a connection dropped mid-stream as a retryable STREAM_BROKEN',
    run: (fixture) =>
      withServer(fixture, [{ dropAfterChunks: 2 }], async (client) => {
        const { error } = await streamError(client, requestFor(fixture), 'dropped stream');
        expectModelError(error, 'STREAM_BROKEN', true, 'dropped stream');
      }),
  },
];
