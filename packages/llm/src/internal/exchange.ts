import type { ModelError, ModelStreamEvent } from '@spine/protocol';
import type { Dispatcher } from 'undici';
import { classifyError } from '../classify-error.js';
import type { LeasedBytes } from './joined-bytes.js';
import type { RequestGuard } from './request-guard.js';
import { type SseEvent, SseParser } from './sse-parser.js';
import type { StreamHandler } from './transport.js';

/** How the response body is read, decided by its status and content type. */
type Mode = 'pending' | 'sse' | 'whole' | 'error';

/** Events queued before reading pauses until the consumer catches up (backpressure). */
const HIGH_WATER = 1024;
/** An error body is kept up to this size for the error message. */
const MAX_ERROR_BODY = 64 * 1024;
/**
 * How long a body whose answer is complete may stay open. The terminal SSE event usually
 * arrives a moment before the end of the HTTP response; it is left to end on its own (aborting
 * it would drop a keep-alive connection), but a server that holds it open longer is cut off.
 */
const RELEASE_GRACE_MS = 1000;

/** What one exchange needs besides its dispatch options. */
export interface ExchangeInit {
  provider: string;
  apiKeyHint: string | undefined;
  handler: StreamHandler;
  guard: RequestGuard;
  /** Lent body bytes, returned once undici is done with the request. */
  lease: LeasedBytes | undefined;
}

/**
 * One request as an undici dispatch handler: the response is parsed as it arrives (no
 * Readable stream, no AbortSignal per request) and its stream events are queued for the
 * consumer, who waits with {@link Exchange.next}. The guard's stop (abort, idle, total) and an
 * early close by the consumer abort the request through the dispatch controller.
 */
export class Exchange implements Dispatcher.DispatchHandler {
  /** Stream events not yet taken by the consumer. */
  out: ModelStreamEvent[] = [];
  /** The error to throw once the queued events are taken. */
  failure: ModelError | undefined;
  /** True once the answer is complete: the terminal event arrived or the body ended. */
  answered = false;
  private mode: Mode = 'pending';
  private controller: Dispatcher.DispatchController | undefined;
  private parser: SseParser | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private settled = false;
  private closed = false;
  private paused = false;
  private waiter: (() => void) | undefined;
  private grace: NodeJS.Timeout | undefined;

  /** @param init - the request's provider, stream state, guard and lent body. */
  constructor(readonly init: ExchangeInit) {}

  /** Resolves when something changed (events, failure or end); resolves at once if it did. */
  next(): Promise<void> {
    if (this.out.length > 0 || this.failure || this.answered) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Takes the queued events, and resumes reading if it was paused for them. */
  take(): ModelStreamEvent[] {
    const events = this.out;
    this.out = [];
    if (this.paused && !this.settled) {
      this.paused = false;
      this.controller?.resume();
    }
    return events;
  }

  /** Stops the request now, for the guard (abort, idle, total): the consumer gets its error. */
  stop(reason: Error): void {
    this.fail(this.init.guard.classify(reason, this.mode === 'pending' ? 'connect' : 'stream'));
    if (!this.settled) this.controller?.abort(reason);
  }

  /**
   * The consumer is done. A complete answer's body is left to end on its own for a grace
   * period (its connection stays usable); anything else is aborted.
   */
  close(): void {
    this.closed = true;
    if (this.settled) return;
    if (this.answered && !this.failure) {
      this.grace = setTimeout(abortExchange, RELEASE_GRACE_MS, this);
      this.grace.unref?.();
    } else {
      this.abort();
    }
  }

  /** Aborts the request if undici still runs it. */
  abort(): void {
    if (!this.settled) this.controller?.abort(new Error('the consumer closed the model stream'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Stopped while the request waited for a connection: abort it as soon as it starts.
    if (this.failure || this.closed) controller.abort(new Error('the request was stopped'));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode;
    this.headers = headers;
    if (statusCode >= 400) this.mode = 'error';
    else if (String(headers['content-type'] ?? '').includes('application/json'))
      this.mode = 'whole';
    else {
      this.mode = 'sse';
      this.parser = new SseParser();
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.answered || this.failure) return;
    const { guard } = this.init;
    if (this.mode === 'sse') {
      try {
        if ((this.parser as SseParser).push(chunk, dispatchEvent, this) > 0) guard.touch();
      } catch (error) {
        this.fail(guard.classify(error, 'stream', this.init.apiKeyHint));
        controller.abort(error as Error);
        return;
      }
      if (this.init.handler.done) this.answered = true;
      else if (this.out.length >= HIGH_WATER && !this.paused) {
        this.paused = true;
        controller.pause();
      }
      if (this.out.length > 0 || this.answered) this.wake();
      return;
    }
    // A whole body has no data events: every received byte (DeepSeek's keep-alive blank lines
    // included) counts as progress; an error body is kept up to a bound for its message.
    if (this.mode === 'whole') guard.touch();
    if (this.mode === 'whole' || this.size < MAX_ERROR_BODY) this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.finishSettled();
    if (this.answered || this.failure) return;
    const { handler } = this.init;
    try {
      if (this.mode === 'error') {
        const text = Buffer.concat(this.chunks).toString('utf8').slice(0, MAX_ERROR_BODY);
        throw classifyError(
          { status: this.status, body: text, headers: this.headers },
          { provider: this.init.provider, apiKeyHint: this.init.apiKeyHint },
        );
      }
      if (this.mode === 'whole')
        handler.handleWhole(Buffer.concat(this.chunks).toString('utf8'), this.out);
      else if (!handler.done) (this.parser as SseParser).end(dispatchEvent, this);
      this.answered = true;
    } catch (error) {
      this.fail(this.init.guard.classify(error, 'stream', this.init.apiKeyHint));
    }
    this.chunks = [];
    this.wake();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finishSettled();
    if (this.answered || this.failure || this.closed) return;
    const { guard, handler } = this.init;
    if (this.mode === 'sse' && !guard.stopped && handler.isComplete()) {
      handler.warn(
        `the connection closed after the finish reason but before the end of the stream (${String(error)}); usage may be missing`,
      );
      this.answered = true;
    } else {
      this.fail(
        guard.classify(error, this.mode === 'pending' ? 'connect' : 'stream', this.init.apiKeyHint),
      );
    }
    this.wake();
  }

  private fail(error: ModelError): void {
    this.failure ??= error;
    this.wake();
  }

  private finishSettled(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.grace) clearTimeout(this.grace);
    this.init.lease?.release();
  }

  private wake(): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter();
    }
  }
}

/** Hands one SSE event to the exchange's stream state (module level: no closure per request). */
function dispatchEvent(event: SseEvent, exchange: Exchange): void {
  exchange.init.handler.handle(event.data, exchange.out, event.event);
}

/** The grace timer's callback. */
function abortExchange(exchange: Exchange): void {
  exchange.abort();
}
