import type { ModelError } from '@spine/protocol';
import { isModelError } from '@spine/protocol';
import { classifyError } from '../classify-error.js';
import { modelError } from '../errors.js';

/** Why the guard cancelled the request. */
type StopReason = 'aborted' | 'idle' | 'total';

/**
 * Owns the timers of one request and listens to the caller's signal: an idle timer that only
 * data events reset (SSE comments and keep-alives do not), a total ceiling, and the abort.
 * When one fires it tells its {@link RequestGuard.target} (the transport aborts the request).
 * Turns whatever the transport throws into a classified `ModelError`.
 */
export class RequestGuard {
  /** Told once when the guard stops the request, with the reason as an error. */
  target: { stop(reason: Error): void } | undefined;
  private stopReason: StopReason | undefined;
  private lastDataAt = Date.now();
  private paused = false;
  /** One timer serves both limits: it fires at the nearer deadline and re-arms for the next. */
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = this.lastDataAt;
  private onAbort: (() => void) | undefined;

  constructor(
    private readonly provider: string,
    private readonly options: {
      signal?: AbortSignal;
      idleTimeoutMs: number;
      totalTimeoutMs: number;
    },
  ) {
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) this.stopReason = 'aborted';
      this.onAbort = (): void => this.stop('aborted');
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    this.arm(options.idleTimeoutMs, options.totalTimeoutMs);
  }

  /** True once the guard cancelled the request (abort, idle or total timeout). */
  get stopped(): boolean {
    return this.stopReason !== undefined;
  }

  /** Throws ABORTED if the caller's signal already fired. */
  throwIfStopped(): void {
    if (this.stopReason !== undefined) throw this.stoppedError(undefined);
  }

  /** Records that a data event arrived now. */
  touch(): void {
    this.lastDataAt = Date.now();
  }

  /**
   * Stops the idle clock while the consumer holds an event (a slow consumer is not an idle
   * server: nothing is read meanwhile). `resume()` restarts it from now.
   */
  pause(): void {
    this.paused = true;
  }

  /** Restarts the idle clock after {@link RequestGuard.pause}. */
  resume(): void {
    this.paused = false;
    this.lastDataAt = Date.now();
  }

  /** Maps any thrown value to a ModelError, preferring the guard's own reason when it stopped. */
  classify(error: unknown, phase: 'connect' | 'stream', apiKeyHint?: string): ModelError {
    if (this.stopReason !== undefined) return this.stoppedError(error);
    if (isModelError(error)) return error;
    return classifyError(error, { provider: this.provider, phase, apiKeyHint });
  }

  /** Clears the timers and the listener; call in `finally`. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.onAbort) this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  /** Arms the timer for the nearer of the idle and total deadlines still ahead (0 disables one). */
  private arm(idleLeft: number, totalLeft: number): void {
    const { idleTimeoutMs, totalTimeoutMs } = this.options;
    const delay =
      idleTimeoutMs > 0 && totalTimeoutMs > 0
        ? Math.min(idleLeft, totalLeft)
        : idleTimeoutMs > 0
          ? idleLeft
          : totalLeft;
    if (idleTimeoutMs <= 0 && totalTimeoutMs <= 0) return;
    this.timer = setTimeout(checkGuard, Math.max(delay, 1), this);
    this.timer.unref?.();
  }

  /** Runs when the timer fires: stops on a passed deadline, otherwise re-arms. */
  check(): void {
    this.timer = undefined;
    const { idleTimeoutMs, totalTimeoutMs } = this.options;
    const now = Date.now();
    const totalLeft = totalTimeoutMs - (now - this.startedAt);
    if (totalTimeoutMs > 0 && totalLeft <= 0) {
      this.stop('total');
      return;
    }
    const idleLeft = idleTimeoutMs - (this.paused ? 0 : now - this.lastDataAt);
    if (idleTimeoutMs > 0 && idleLeft <= 0) {
      this.stop('idle');
      return;
    }
    this.arm(idleLeft, totalLeft);
  }

  private stop(reason: StopReason): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.target?.stop(new Error(`request stopped: ${reason}`));
  }

  private stoppedError(cause: unknown): ModelError {
    switch (this.stopReason) {
      case 'idle':
        return modelError(
          this.provider,
          'STREAM_IDLE',
          `No data from ${this.provider} for ${this.options.idleTimeoutMs} ms (keep-alive comments do not count); retry, or raise idleTimeoutMs.`,
          { cause },
        );
      case 'total':
        return modelError(
          this.provider,
          'REQUEST_TIMEOUT',
          `The ${this.provider} request exceeded totalTimeoutMs (${this.options.totalTimeoutMs} ms); retry, or raise totalTimeoutMs.`,
          { cause },
        );
      default:
        return modelError(
          this.provider,
          'ABORTED',
          `The ${this.provider} request was aborted by the caller.`,
          {
            retryable: false,
            cause,
          },
        );
    }
  }
}

/** The guard timer's callback (module level: no closure per request). */
function checkGuard(guard: RequestGuard): void {
  guard.check();
}
