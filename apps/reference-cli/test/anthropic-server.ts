import type { ServerResponse } from 'node:http';
import {
  type LoopbackServer,
  sseFrame,
  startSseServer,
  writeInPieces,
  writeSseHead,
} from '@spine/test-utils';
import { invalidMessagesRequest } from './anthropic-validate.js';

/** A tool call the scripted model makes; `input` is streamed as `input_json_delta` pieces. */
export interface AnthropicToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** One scripted assistant message, streamed in the Messages API event format. */
export interface AnthropicMessageReply {
  /** A thinking block (sent first) with the signature the client must send back unchanged. */
  thinking?: { text: string; signature: string };
  text?: string;
  toolUses?: AnthropicToolUse[];
  /** Default `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: string;
  /** Characters per delta (default 7: splits words, JSON strings and escapes across deltas). */
  chunkSize?: number;
  /** Send only this many events, then an `error` event (`overloaded_error`) and end the stream. */
  failAfterEvents?: number;
}

/** An HTTP error answer in Anthropic's error shape (`overloaded_error` for 529 …). */
export interface AnthropicErrorReply {
  error: { status: number; type: string; message: string; headers?: Record<string, string> };
}

/** One scripted answer. */
export type AnthropicReply = AnthropicMessageReply | AnthropicErrorReply;

/** A `POST /v1/messages` request as the server received it. */
export interface AnthropicRequest {
  path: string;
  headers: Record<string, string>;
  /** The body bytes as UTF-8 text, exactly as received. */
  raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary wire bodies.
  body: any;
}

/** A running scripted Anthropic Messages API server. */
export interface AnthropicServer extends LoopbackServer {
  /** Every authenticated `POST /v1/messages`, in arrival order (rejected ones are not recorded). */
  requests: AnthropicRequest[];
  /** Requests refused (bad key, no `anthropic-version`, a broken Messages API rule), with the reason. */
  refused: string[];
}

/** Model ids `GET /v1/models` lists. */
export const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1'];

const MESSAGE_USAGE = {
  input_tokens: 420,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 1,
};

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < text.length; offset += size)
    out.push(text.slice(offset, offset + size));
  return out.length ? out : [''];
}

/** The SSE text of one scripted message: named events, exactly the Messages API's sequence. */
export function messageStream(reply: AnthropicMessageReply, id: string, model: string): string {
  const size = reply.chunkSize ?? 7;
  let text = '';
  let events = 0;
  const send = (data: Record<string, unknown>): void => {
    if (reply.failAfterEvents !== undefined && events > reply.failAfterEvents) return;
    const failed = events === reply.failAfterEvents;
    events++;
    const sent = failed
      ? { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
      : data;
    text += sseFrame(JSON.stringify(sent), String(sent.type));
  };
  send({
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: MESSAGE_USAGE,
    },
  });
  send({ type: 'ping' });
  let index = 0;
  if (reply.thinking) {
    send({
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    for (const piece of pieces(reply.thinking.text, size))
      send({
        type: 'content_block_delta',
        index,
        delta: { type: 'thinking_delta', thinking: piece },
      });
    send({
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: reply.thinking.signature },
    });
    send({ type: 'content_block_stop', index });
    index++;
  }
  if (reply.text) {
    send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of pieces(reply.text, size))
      send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    send({ type: 'content_block_stop', index });
    index++;
  }
  for (const tool of reply.toolUses ?? []) {
    send({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
    });
    for (const piece of pieces(JSON.stringify(tool.input), size))
      send({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: piece },
      });
    send({ type: 'content_block_stop', index });
    index++;
  }
  const stopReason = reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn');
  send({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { ...MESSAGE_USAGE, output_tokens: 64 },
  });
  send({ type: 'message_stop' });
  return text;
}

function sendError(
  response: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'request-id': 'req_scripted',
    ...headers,
  });
  response.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

/**
 * Starts a scripted Anthropic Messages API server on 127.0.0.1. `GET /v1/models` lists
 * {@link MODELS}. Both routes check `x-api-key` against `apiKey` and that `anthropic-version` is
 * present (401 / 400 in Anthropic's error shape otherwise); `POST /v1/messages` also checks the
 * Messages API's request rules (400 naming the broken rule, see `anthropic-validate.ts`), records
 * the request and answers the next scripted reply as an SSE stream written in small pieces (or as
 * an error with its headers, e.g. 529 with `retry-after`).
 * When the script is exhausted it answers 500 saying so.
 */
export async function createAnthropicServer(options: {
  apiKey: string;
  replies: AnthropicReply[];
}): Promise<AnthropicServer> {
  const queue = [...options.replies];
  const requests: AnthropicRequest[] = [];
  const refused: string[] = [];
  let served = 0;
  const server = await startSseServer(async (request, response, raw) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const headers = request.headers as Record<string, string>;
    const models = request.method === 'GET' && path === '/v1/models';
    if (!models && (request.method !== 'POST' || path !== '/v1/messages')) {
      sendError(response, 404, 'not_found_error', `no route ${request.method} ${path}`);
      return;
    }
    if (headers['x-api-key'] !== options.apiKey) {
      refused.push(`x-api-key ${headers['x-api-key'] === undefined ? 'missing' : 'wrong'}`);
      sendError(response, 401, 'authentication_error', 'invalid x-api-key');
      return;
    }
    if (!headers['anthropic-version']) {
      refused.push('anthropic-version missing');
      sendError(response, 400, 'invalid_request_error', 'anthropic-version: header is required');
      return;
    }
    if (models) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          data: MODELS.map((model) => ({ type: 'model', id: model })),
          has_more: false,
        }),
      );
      return;
    }
    // biome-ignore lint/suspicious/noExplicitAny: the body is whatever the client sent.
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      sendError(response, 400, 'invalid_request_error', 'the body is not JSON');
      return;
    }
    const invalid = invalidMessagesRequest(body);
    if (invalid !== undefined) {
      refused.push(invalid);
      sendError(response, 400, 'invalid_request_error', invalid);
      return;
    }
    requests.push({ path, headers, raw, body });
    const reply = queue.shift();
    if (reply === undefined) {
      sendError(
        response,
        500,
        'api_error',
        `scripted server: no reply left for request ${requests.length}`,
      );
      return;
    }
    if ('error' in reply) {
      const { status, type, message, headers: extra } = reply.error;
      sendError(response, status, type, message, extra);
      return;
    }
    served++;
    writeSseHead(response, { 'request-id': `req_${served}` });
    await writeInPieces(response, messageStream(reply, `msg_scripted_${served}`, body.model), {
      pieceSize: 512,
      delayMs: 0,
    });
    response.end();
  });
  return { ...server, requests, refused };
}
