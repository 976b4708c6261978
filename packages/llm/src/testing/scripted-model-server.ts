import type { IncomingMessage, ServerResponse } from 'node:http';
import { anthropicBody, anthropicEvents, anthropicUsage } from './anthropic-events.js';
import { sleep, sseFrame, startSseServer, writeSseHead } from './loopback-server.js';
import { type ChunkContext, completionBody, completionChunks, wireUsage } from './openai-chunks.js';
import { PromptCacheEmulator } from './prompt-cache.js';
import type { ReceivedRequest, ScriptedCompletion, ScriptedReply } from './scripted-reply.js';

/** Options of {@link createScriptedModelServer}. */
export interface ScriptedModelServerOptions {
  /** A queue of replies (one per chat request, in order), or a function that picks one. */
  replies?: ScriptedReply[] | ((request: ReceivedRequest, index: number) => ScriptedReply);
  /** Emulate DeepSeek's prefix cache in the reported usage (default false: no cache hits). */
  promptCache?: boolean;
  /** Model ids listed by `GET /models` (default `['deepseek-v4-flash', 'deepseek-v4-pro']`). */
  models?: string[];
}

/** A running scripted OpenAI-compatible chat-completions server. */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>`; clients append `/chat/completions`. */
  baseUrl: string;
  /** Every chat request received so far, in arrival order. */
  requests: ReceivedRequest[];
  /** Appends replies to the queue (queue mode only). */
  push(...replies: ScriptedReply[]): void;
  /** Closes the server and every open stream. */
  close(): Promise<void>;
}

/**
 * Starts a scripted model server on 127.0.0.1 that answers each request with the next scripted
 * reply: `POST …/chat/completions` in DeepSeek's SSE wire format byte for byte (usage on the
 * finish chunk, `data: [DONE]`), `POST …/messages` in the Anthropic Messages event format, or one
 * JSON body when the request says `stream: false`. `GET …/models` lists `models`. When no reply
 * is left it answers HTTP 500 with a message saying so.
 *
 * @example
 * ```ts
 * const server = await createScriptedModelServer({ replies: [{ text: 'Hello' }] });
 * const model = createOpenAICompatibleModel({ baseUrl: server.baseUrl });
 * await server.close();
 * ```
 */
export async function createScriptedModelServer(
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const queue: ScriptedReply[] = Array.isArray(options.replies) ? [...options.replies] : [];
  const pick = typeof options.replies === 'function' ? options.replies : undefined;
  const requests: ReceivedRequest[] = [];
  const cache = new PromptCacheEmulator();
  const models = options.models ?? ['deepseek-v4-flash', 'deepseek-v4-pro'];

  const server = await startSseServer(async (request, response, raw) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'GET' && path.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          data: models.map((id) => ({ id, object: 'model', owned_by: 'spine-scripted' })),
        }),
      );
      return;
    }
    const wire = path.endsWith('/chat/completions')
      ? 'openai'
      : path.endsWith('/messages')
        ? 'anthropic'
        : undefined;
    if (request.method !== 'POST' || wire === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: { message: `no route ${request.method} ${path}`, type: 'not_found' },
        }),
      );
      return;
    }
    const received: ReceivedRequest = {
      body: parseJson(raw),
      raw,
      headers: headersOf(request),
      at: Date.now(),
      path,
    };
    const index = requests.length;
    requests.push(received);
    const reply = pick ? pick(received, index) : queue.shift();
    if (!reply) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: `scripted model server has no reply left for request #${index + 1}; push() more replies`,
            type: 'server_error',
          },
        }),
      );
      return;
    }
    await answer(reply, received, response, {
      cache,
      promptCache: options.promptCache === true,
      index,
      wire,
    });
  });

  return {
    baseUrl: server.baseUrl,
    requests,
    push: (...replies) => {
      queue.push(...replies);
    },
    close: () => server.close(),
  };
}

interface AnswerContext {
  cache: PromptCacheEmulator;
  promptCache: boolean;
  index: number;
  wire: 'openai' | 'anthropic';
}

/** The SSE frames of a completion in the request's wire format. */
function frames(
  completion: ScriptedCompletion,
  context: AnswerContext,
  chunkContext: ChunkContext,
  prompt: { promptTokens: number; hitTokens: number },
  outputTokens: number,
): string[] {
  if (context.wire === 'anthropic') {
    const usage = anthropicUsage(prompt, outputTokens);
    return anthropicEvents(completion, chunkContext, usage).map(([event, data]) =>
      sseFrame(data, event),
    );
  }
  const usage = wireUsage(prompt, outputTokens, completion.usage);
  return [
    ...completionChunks(completion, chunkContext, usage).map((data) => sseFrame(data)),
    sseFrame('[DONE]'),
  ];
}

async function answer(
  reply: ScriptedReply,
  request: ReceivedRequest,
  response: ServerResponse,
  context: AnswerContext,
): Promise<void> {
  if ('error' in reply) {
    response.writeHead(reply.error.status, {
      'content-type': 'application/json',
      ...reply.error.headers,
    });
    response.end(reply.error.body);
    return;
  }
  const body = request.body ?? {};
  const chunkContext: ChunkContext = {
    id: `scripted-${context.index + 1}-${Date.now().toString(36)}`,
    model: typeof body.model === 'string' ? body.model : 'scripted-model',
    created: Math.floor(Date.now() / 1000),
  };
  const key =
    JSON.stringify(body.tools ?? null) +
    JSON.stringify(body.system ?? null) +
    JSON.stringify(body.messages ?? null);
  const prompt = context.cache.measure(key, context.promptCache);

  if ('dropAfterChunks' in reply || 'stallAfterChunks' in reply) {
    const count = 'dropAfterChunks' in reply ? reply.dropAfterChunks : reply.stallAfterChunks;
    const partial = { text: reply.text ?? 'partial answer '.repeat(8), chunkSize: 8 };
    const all = frames(partial, context, chunkContext, prompt, 0);
    // Anthropic streams open with message_start, ping and content_block_start: skip past them.
    const skip = context.wire === 'anthropic' ? 3 : 0;
    writeSseHead(response);
    for (const frame of all.slice(0, count + skip)) response.write(frame);
    if ('dropAfterChunks' in reply) {
      await sleep(5);
      response.socket?.destroy();
      return;
    }
    if (reply.keepAliveEveryMs !== undefined) {
      const every = reply.keepAliveEveryMs;
      const timer = setInterval(() => {
        if (response.destroyed) clearInterval(timer);
        else response.write(': keep-alive\n\n');
      }, every);
      response.on('close', () => clearInterval(timer));
    }
    return; // stalled: the connection stays open until the client or close() ends it
  }

  const completion: ScriptedCompletion = reply;
  // Scripted usage overrides the estimate on both wires (the OpenAI chunks apply it themselves).
  const promptTokens = completion.usage?.promptTokens ?? prompt.promptTokens;
  const scriptedPrompt = {
    promptTokens,
    hitTokens: Math.min(promptTokens, completion.usage?.cacheHitTokens ?? prompt.hitTokens),
  };
  const outputChars =
    (completion.text ?? '').length +
    (completion.reasoning ?? '').length +
    (completion.toolCalls ?? []).reduce(
      (sum, call) => sum + call.name.length + call.arguments.length,
      0,
    );
  const outputTokens = completion.usage?.completionTokens ?? Math.ceil(outputChars / 4);

  if (body.stream !== true) {
    response.writeHead(200, { 'content-type': 'application/json', ...completion.headers });
    response.end(
      context.wire === 'anthropic'
        ? anthropicBody(completion, chunkContext, anthropicUsage(scriptedPrompt, outputTokens))
        : completionBody(
            completion,
            chunkContext,
            wireUsage(prompt, outputTokens, completion.usage),
          ),
    );
    return;
  }
  writeSseHead(response, completion.headers);
  const delay = completion.delayMs ?? 0;
  for (let i = 0; i < (completion.keepAlives ?? 0); i++) {
    response.write(': keep-alive\n\n');
    if (delay > 0) await sleep(delay);
  }
  const all = frames(completion, context, chunkContext, scriptedPrompt, outputTokens);
  const malformed =
    completion.malformedAt === undefined
      ? -1
      : Math.min(Math.max(0, completion.malformedAt), all.length - 1);
  for (const [position, frame] of all.entries()) {
    if (response.destroyed) return;
    if (delay > 0) await sleep(delay);
    if (position === malformed) response.write(malformedFrame(context.wire, chunkContext));
    response.write(frame);
  }
  response.end();
}

/** A frame whose data is a chunk cut in two: the JSON ends inside a string. */
function malformedFrame(wire: 'openai' | 'anthropic', chunk: ChunkContext): string {
  return wire === 'anthropic'
    ? 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lost\n\n'
    : `data: {"id":"${chunk.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"lost\n\n`;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
