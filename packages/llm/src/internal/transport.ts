import type { ModelStreamEvent } from '@spine/protocol';
import type { Dispatcher } from 'undici';
import { type ModelPrice, withCost } from '../model-table.js';
import { defaultDispatcher } from './default-dispatcher.js';
import { Exchange } from './exchange.js';
import type { LeasedBytes } from './joined-bytes.js';
import { RequestGuard } from './request-guard.js';

/**
 * A provider's stream state, which turns SSE payloads into stream events. One per request; its
 * methods are called directly (no per-request closures on the hot path).
 */
export interface StreamHandler {
  /**
   * Handles the data of one SSE event (`name`: its `event:` field), pushing stream events into
   * `out`. Throws a ModelError for data it cannot read (STREAM_BROKEN) or an error payload.
   */
  handle(data: string, out: ModelStreamEvent[], name?: string): void;
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

/**
 * Sends one request through undici's dispatcher API and yields its stream events. Owns the
 * timers (idle counts data events only), maps every failure to a ModelError, and never
 * retries. The response is parsed as it arrives by an {@link Exchange}; this generator only
 * hands its events on, so a step pays for no Readable stream and no AbortSignal of its own.
 */
export async function* streamModel(spec: StreamSpec): AsyncGenerator<ModelStreamEvent> {
  const handler = spec.handler;
  const guard = new RequestGuard(spec.provider, {
    signal: spec.signal,
    idleTimeoutMs: spec.idleTimeoutMs,
    totalTimeoutMs: spec.totalTimeoutMs,
  });
  const leased = typeof spec.body !== 'string' && isLeased(spec.body) ? spec.body : undefined;
  let dispatched = false;
  const exchange = new Exchange({
    provider: spec.provider,
    apiKeyHint: spec.apiKeyHint,
    handler,
    guard,
    lease: leased,
  });
  try {
    const headers = spec.headers();
    const body =
      typeof spec.body === 'string'
        ? spec.body
        : leased
          ? leased.bytes
          : joinChunks(spec.body as readonly Buffer[], headers);
    guard.throwIfStopped();
    guard.target = exchange;
    try {
      const target = targetOf(spec.url);
      const dispatcher = spec.dispatcher ?? defaultDispatcher();
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: 'POST',
          headers,
          // undici documents Iterable bodies (Dispatcher.md, `body`); its typings omit them.
          body: body as unknown as Dispatcher.DispatchOptions['body'],
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        exchange,
      );
      dispatched = true;
    } catch (error) {
      throw guard.classify(error, 'connect', spec.apiKeyHint);
    }
    for (;;) {
      if (exchange.out.length > 0) {
        const events = exchange.take();
        // A consumer holding an event is not an idle server: the idle clock waits for it.
        guard.pause();
        for (const event of events) yield event;
        guard.resume();
        continue;
      }
      if (exchange.failure) throw exchange.failure;
      if (exchange.answered) break;
      await exchange.next();
    }
    yield withCost(handler.finish(), spec.price);
  } finally {
    guard.dispose();
    if (dispatched) exchange.close();
    else leased?.release();
  }
}

/** Origin and path of a request URL; the adapters send to a handful of URLs, parsed once. */
const targets = new Map<string, { origin: string; path: string }>();

function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size < 64) targets.set(url, target);
  }
  return target;
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
