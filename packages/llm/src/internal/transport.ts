import type { ModelStreamEvent } from '@spine/protocol';
import { type Dispatcher, request as undiciRequest } from 'undici';
import { classifyError } from '../classify-error.js';
import { type ModelPrice, withCost } from '../model-table.js';
import type { LeasedBytes } from './joined-bytes.js';
import { RequestGuard } from './request-guard.js';
import { type SseEvent, SseParser } from './sse-parser.js';

/**
 * A provider's stream state, which turns SSE payloads into stream events. One per request; its
 * methods are called directly (no per-request closures on the hot path).
 */
export interface StreamHandler {
  /** Handles the data of one SSE event, pushing stream events into `out`. */
  handle(data: string, out: ModelStreamEvent[]): void;
  /** Handles a whole JSON body (a server that did not stream). */
  handleWhole(body: string, out: ModelStreamEvent[]): void;
  /** True once the terminal event arrived (stop reading). */
  readonly done: boolean;
  /**
   * True once the answer itself is complete (a finish reason arrived) even if the terminal
   * event did not: a connection lost after that point loses only trailing usage, not content.
   * `warn` records that in the finish warnings.
   */
  isComplete(): boolean;
  /** Adds a warning to the finish event. */
  warn(note: string): void;
  /** The final `finish` event (may throw STREAM_BROKEN). */
  finish(): ModelStreamEvent;
}

/** What a provider adapter plugs into {@link streamModel}. */
export interface StreamSpec {
  provider: string;
  url: string;
  /** Request headers, computed when the stream starts (may throw, e.g. a missing API key). */
  headers: () => Record<string, string>;
  /**
   * The exact body: text, or chunks of bytes sent one after another with their total as
   * `content-length` (a large cached body is then neither copied nor re-encoded), or bytes
   * lent for the request, released when it is over.
   */
  body: string | readonly Buffer[] | LeasedBytes;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  idleTimeoutMs: number;
  totalTimeoutMs: number;
  apiKeyHint?: string;
  /** The request's stream state. */
  handler: StreamHandler;
  /** Prices the finish event's usage, when the model is in the table. */
  price: ModelPrice | undefined;
}

const MAX_ERROR_BODY = 64 * 1024;

/**
 * Sends one request with undici and yields its stream events. Owns the timers (idle counts
 * data events only), maps every failure to a ModelError, and never retries.
 */
export async function* streamModel(spec: StreamSpec): AsyncGenerator<ModelStreamEvent> {
  const handler = spec.handler;
  const guard = new RequestGuard(spec.provider, {
    signal: spec.signal,
    idleTimeoutMs: spec.idleTimeoutMs,
    totalTimeoutMs: spec.totalTimeoutMs,
  });
  let response: Dispatcher.ResponseData | undefined;
  let consumed = false;
  try {
    const headers = spec.headers();
    const body =
      typeof spec.body === 'string'
        ? spec.body
        : isLeased(spec.body)
          ? spec.body.bytes
          : joinChunks(spec.body, headers);
    guard.throwIfStopped();
    try {
      response = await undiciRequest(spec.url, {
        method: 'POST',
        headers,
        // undici documents Iterable bodies (Dispatcher.md, `body`); its typings omit them.
        body: body as unknown as Dispatcher.RequestOptions['body'],
        dispatcher: spec.dispatcher,
        signal: guard.signal,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
    } catch (error) {
      throw guard.classify(error, 'connect', spec.apiKeyHint);
    }
    const responseHeaders = response.headers as Record<string, string | string[] | undefined>;
    if (response.statusCode >= 400) {
      let text: string;
      try {
        text = await readBounded(response.body);
      } catch (error) {
        throw guard.classify(error, 'stream', spec.apiKeyHint);
      }
      consumed = true;
      throw classifyError(
        { status: response.statusCode, body: text, headers: responseHeaders },
        { provider: spec.provider, apiKeyHint: spec.apiKeyHint },
      );
    }
    const contentType = String(responseHeaders['content-type'] ?? '');
    const out: ModelStreamEvent[] = [];
    if (contentType.includes('application/json')) {
      // A whole body has no data events: every received byte (DeepSeek's keep-alive blank lines
      // included) counts as progress here.
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of response.body) {
          chunks.push(chunk as Buffer);
          guard.touch();
        }
      } catch (error) {
        throw guard.classify(error, 'stream', spec.apiKeyHint);
      }
      consumed = true;
      handler.handleWhole(Buffer.concat(chunks).toString('utf8'), out);
      yield* out;
      yield withCost(handler.finish(), spec.price);
      return;
    }
    const parser = new SseParser();
    const sink: EventSink = { handler, out };
    try {
      // Leaving the loop at the terminal event must not abort the body: see `release`.
      for await (const chunk of response.body.iterator({ destroyOnReturn: false })) {
        if (parser.push(chunk as Buffer, dispatch, sink) > 0) guard.touch();
        if (out.length > 0) {
          guard.pause();
          for (const event of out) yield event;
          guard.resume();
          out.length = 0;
        }
        if (handler.done) break;
      }
      if (!handler.done) parser.end(dispatch, sink);
    } catch (error) {
      if (guard.stopped || !handler.isComplete())
        throw guard.classify(error, 'stream', spec.apiKeyHint);
      handler.warn(
        `the connection closed after the finish reason but before the end of the stream (${String(error)}); usage may be missing`,
      );
    }
    for (const event of out) yield event;
    consumed = true;
    yield withCost(handler.finish(), spec.price);
  } finally {
    if (typeof spec.body !== 'string' && isLeased(spec.body)) spec.body.release();
    guard.dispose();
    if (response && !consumed) discard(response.body);
    else if (response) release(response.body);
  }
}

/** Where parsed SSE events go: the request's handler, collecting into `out`. */
interface EventSink {
  handler: StreamHandler;
  out: ModelStreamEvent[];
}

/** Hands one SSE event to its sink's handler (module level: no closure per request). */
function dispatch(event: SseEvent, sink: EventSink): void {
  sink.handler.handle(event.data, sink.out);
}

function isLeased(body: readonly Buffer[] | LeasedBytes): body is LeasedBytes {
  return !Array.isArray(body);
}

/** Bodies up to this size are copied into one buffer: one write instead of one per chunk. */
const COPY_LIMIT = 256 * 1024;

/**
 * A small body as one buffer; a large one as its chunks (an iterable body, with the total as
 * `content-length`), so a multi-megabyte history is written straight from its cache.
 */
function joinChunks(chunks: readonly Buffer[], headers: Record<string, string>): Buffer | Buffer[] {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  if (length <= COPY_LIMIT) return Buffer.concat(chunks, length);
  headers['content-length'] = String(length);
  return chunks.filter((chunk) => chunk.length > 0);
}

const RELEASE_GRACE_MS = 1000;

/**
 * Lets a body whose answer is complete end on its own. The terminal SSE event usually arrives
 * a moment before the end of the HTTP response; destroying the body then would abort the
 * request (an error with a stack trace on every call, and possibly a lost keep-alive
 * connection). Whatever is left is read and dropped; a server that keeps the body open longer
 * than {@link RELEASE_GRACE_MS} has it destroyed.
 */
function release(body: Dispatcher.ResponseData['body']): void {
  if (body.readableEnded || body.destroyed) return;
  const timer = setTimeout(destroyBody, RELEASE_GRACE_MS, body);
  timer.unref?.();
  const settle = clearTimeout.bind(null, timer);
  body.once('end', settle).once('close', settle);
  // The answer is already delivered: an error while draining concerns no one.
  body.on('error', ignore);
  body.resume();
}

function destroyBody(body: Dispatcher.ResponseData['body']): void {
  body.destroy();
}

/** Aborts a body nobody reads any more; the abort error it emits has no one to tell. */
function discard(body: Dispatcher.ResponseData['body']): void {
  if (body.destroyed) return;
  body.on('error', ignore);
  body.destroy();
}

function ignore(): void {}

async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (size < MAX_ERROR_BODY) chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ERROR_BODY);
}
