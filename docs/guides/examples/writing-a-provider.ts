// Runnable companion of docs/guides/writing-a-provider.md. Offline: every server is on 127.0.0.1.
//   npx tsx docs/guides/examples/writing-a-provider.ts
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgent, replay } from '@spine/agent-loop';
import { createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import { checkModelClient, createScriptedModelServer } from '@spine/llm/testing';
import {
  type AssistantPart,
  type FinishReason,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  type WebSearchProvider,
  type WebSearchResult,
} from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import { createToolRuntime } from '@spine/tool-runtime';
import {
  createWebRuntime,
  createWebTools,
  FetchFailedError,
  ProviderUnavailableError,
} from '@spine/web-tools';
import { checkWebSearchProvider } from '@spine/web-tools/testing';

// 1. First choice: an OpenAI-compatible endpoint needs no new code.
const scripted = await createScriptedModelServer({
  replies: [{ text: 'Hello from a local server.' }],
});
const compatible = createOpenAICompatibleModel({
  baseUrl: scripted.baseUrl,
  apiKey: 'test',
  provider: 'local',
});
for await (const event of compatible.stream({
  model: 'deepseek-v4-flash',
  system: '',
  messages: [{ role: 'user', content: 'Hi' }],
  tools: [],
})) {
  if (event.type === 'finish')
    console.log('openai-compatible:', event.finishReason, JSON.stringify(event.message.content));
}
await scripted.close();

// 2. A ModelClient for a made-up wire format: POST /generate answers NDJSON lines
// {"text":"…"} / {"call":{"id","name","args"}} / {"done":"stop"|"tool_calls","in":n,"out":n}.
interface ToyBody {
  model: string;
  system: string;
  messages: ModelRequest['messages'];
  tools: { name: string; description: string; schema: unknown }[];
}

function encodeToyRequest(request: ModelRequest): string {
  const body: ToyBody = {
    model: request.model,
    system: request.system,
    messages: request.messages,
    tools: request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      schema: tool.parameters,
    })),
  };
  return JSON.stringify(body); // deterministic: same request, same bytes
}

function mapFinish(raw: string): FinishReason {
  return raw === 'stop'
    ? 'stop'
    : raw === 'tool_calls'
      ? 'tool-calls'
      : raw === 'length'
        ? 'length'
        : 'other';
}

function httpError(status: number, body: string, headers: Headers): ModelError {
  const retryAfter = Number(headers.get('retry-after'));
  const common = {
    provider: 'toy',
    status,
    message: `toy server answered ${status}: ${body.slice(0, 200)}`,
  };
  if (status === 429)
    return new ModelError({
      ...common,
      code: 'RATE_LIMITED',
      retryable: true,
      ...(retryAfter >= 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
    });
  if (status === 401 || status === 403)
    return new ModelError({
      ...common,
      code: 'AUTH_FAILED',
      retryable: false,
      message: `${common.message}; set TOY_API_KEY`,
    });
  if (status === 400 && /context/i.test(body))
    return new ModelError({ ...common, code: 'CONTEXT_OVERFLOW', retryable: false });
  if (status >= 500)
    return new ModelError({
      ...common,
      code: status === 503 ? 'OVERLOADED' : 'SERVER_ERROR',
      retryable: true,
    });
  return new ModelError({ ...common, code: 'INVALID_REQUEST', retryable: false });
}

export function createToyModel(options: { baseUrl: string }): ModelClient {
  return {
    specificationVersion: 1,
    provider: 'toy',
    encodeRequest: encodeToyRequest,
    async *stream(request, streamOptions = {}): AsyncIterable<ModelStreamEvent> {
      let response: Response;
      try {
        response = await fetch(`${options.baseUrl}/generate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: encodeToyRequest(request),
          ...(streamOptions.signal ? { signal: streamOptions.signal } : {}),
        });
      } catch (cause) {
        if (streamOptions.signal?.aborted)
          throw new ModelError({
            code: 'ABORTED',
            provider: 'toy',
            message: 'the request was aborted',
            retryable: false,
            cause,
          });
        throw new ModelError({
          code: 'NETWORK_ERROR',
          provider: 'toy',
          message: `cannot reach ${options.baseUrl}`,
          retryable: true,
          cause,
        });
      }
      if (!response.ok || !response.body)
        throw httpError(response.status, await response.text(), response.headers);
      yield { type: 'start', model: request.model };
      const content: AssistantPart[] = [];
      let text = '';
      let buffered = '';
      const decoder = new TextDecoder();
      for await (const chunk of response.body) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline = buffered.indexOf('\n');
        for (; newline >= 0; newline = buffered.indexOf('\n')) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          const data = JSON.parse(line) as {
            text?: string;
            call?: { id: string; name: string; args: string };
            done?: string;
            in?: number;
            out?: number;
          };
          if (data.text !== undefined) {
            text += data.text;
            yield { type: 'text-delta', text: data.text };
          }
          if (data.call) {
            const index = content.filter((part) => part.type === 'tool-call').length;
            yield { type: 'tool-call-start', index, id: data.call.id, name: data.call.name };
            yield { type: 'tool-call-delta', index, argumentsDelta: data.call.args };
            content.push({
              type: 'tool-call',
              id: data.call.id,
              name: data.call.name,
              arguments: data.call.args,
            });
          }
          if (data.done !== undefined) {
            if (text) content.unshift({ type: 'text', text });
            yield {
              type: 'finish',
              message: { role: 'assistant', content },
              finishReason: mapFinish(data.done),
              rawFinishReason: data.done,
              usage: {
                inputTokens: data.in ?? 0,
                cacheReadTokens: 0,
                cacheWriteTokens: 0,
                outputTokens: data.out ?? 0,
              },
            };
            return;
          }
        }
      }
      throw new ModelError({
        code: 'STREAM_BROKEN',
        provider: 'toy',
        message: 'the stream ended without a done line',
        retryable: true,
      });
    },
  };
}

// The toy server: first a 429, then a tool call, then an answer that quotes the tool result.
let served = 0;
const server: Server = createServer((request, response) => {
  let raw = '';
  request.on('data', (chunk) => {
    raw += chunk;
  });
  request.on('end', () => {
    served++;
    if (served === 1) {
      response.writeHead(429, { 'retry-after': '0' }).end('{"error":"slow down"}');
      return;
    }
    const body = JSON.parse(raw) as ToyBody;
    const last = body.messages.at(-1);
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    if (last?.role === 'tool') {
      response.write(`${JSON.stringify({ text: 'Top hit: ' })}\n`);
      response.end(
        `${JSON.stringify({ text: last.content.split('\n').find((line) => line.startsWith('1. ')) ?? '' })}\n${JSON.stringify({ done: 'stop', in: 50, out: 8 })}\n`,
      );
    } else {
      response.end(
        `${JSON.stringify({ call: { id: 'call_1', name: 'web_search', args: '{"query":"spine session log"}' } })}\n${JSON.stringify({ done: 'tool_calls', in: 40, out: 12 })}\n`,
      );
    }
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// 3. A WebSearchProvider over a local index. Failures are typed: no index is
// PROVIDER_UNAVAILABLE, a cancelled search FETCH_FAILED.
const pages: WebSearchResult[] = [
  {
    title: 'Session log',
    url: 'https://example.org/session-log',
    snippet: 'Append-only events, derived messages.',
  },
  {
    title: 'Compaction',
    url: 'https://example.org/compaction',
    snippet: 'Checkpoints that keep the facts.',
  },
  {
    title: 'Spine conformance kits',
    url: 'https://example.org/testing',
    snippet: 'Check a provider of your own.',
  },
];
function createLocalSearch(index: WebSearchResult[] | undefined): WebSearchProvider {
  return {
    specificationVersion: 1,
    kind: 'search',
    id: 'local-index',
    availability: () =>
      index
        ? { available: true }
        : { available: false, reason: 'no index: pass the pages to index' },
    async search(query, options) {
      if (!index)
        throw new ProviderUnavailableError({ kind: 'search', detail: 'no index to search' });
      if (options?.signal?.aborted)
        throw new FetchFailedError({
          url: 'local-index',
          reason: 'aborted',
          detail: 'search aborted',
        });
      const words = query.query.toLowerCase().split(/\s+/);
      return index
        .filter((page) => words.some((word) => page.title.toLowerCase().includes(word)))
        .slice(0, query.maxResults ?? 5);
    },
  };
}
const localSearch = createLocalSearch(pages);
const web = createWebRuntime({ providers: [localSearch], search: 'local-index' });
console.log('web selection:', JSON.stringify(web.describe().search));

// 4. The agent loop runs the toy client and the search tool, retrying the 429.
const session = await Session.create({ store: createMemoryStore() });
const tools = createToolRuntime({
  cwd: process.cwd(),
  tools: createWebTools(web).filter((tool) => tool.spec.name === 'web_search'),
  approval: 'never-ask',
});
const agent = createAgent({
  session,
  model: createToyModel({ baseUrl }),
  modelId: 'toy-1',
  tools,
  retryPolicy: createRetryPolicy({ baseDelayMs: 10 }),
});
const result = await agent.run('Find the session log docs.');
console.log('turn:', result.reason, '| answer:', result.text);
console.log(
  'events:',
  session
    .events()
    .map((event) => event.type)
    .join(' '),
);
const report = replay(session, { model: createToyModel({ baseUrl }) });
console.log(
  'replay:',
  report.ok,
  report.requests.map((r) => `${r.wireBytes} bytes ${r.wireHash?.slice(0, 19)}`).join(', '),
);
await session.close();
server.close();

// 5. The conformance kits check a provider the way Spine checks its own: the ModelClient kit
// drives a client against loopback servers that speak the OpenAI-compatible and Anthropic wire
// formats (here the configured OpenAI-compatible client of step 1), the search kit a provider.
const clientReport = await checkModelClient({
  client: (url) =>
    createOpenAICompatibleModel({
      baseUrl: url,
      apiKey: 'test',
      provider: 'local',
      idleTimeoutMs: 5000,
    }),
});
const searchReport = await checkWebSearchProvider({
  configured: () => createLocalSearch(pages),
  unconfigured: () => createLocalSearch(undefined),
});
for (const [kit, report] of [
  ['ModelClient', clientReport],
  ['WebSearchProvider', searchReport],
] as const) {
  console.log(`${kit} kit: ${report.passed} passed, ${report.failed.length} failed`);
  for (const failure of report.failed) console.log(`  ${failure.name}: ${failure.message}`);
  if (!report.ok) process.exitCode = 1;
}
