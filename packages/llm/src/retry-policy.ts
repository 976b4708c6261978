import type { RetryDecision, RetryPolicy } from '@spine/protocol';
import { isModelError } from '@spine/protocol';

/** Options of {@link createRetryPolicy}. */
export interface RetryPolicyOptions {
  /** Total attempts including the first (default 4: up to 3 retries). */
  maxAttempts?: number;
  /** Delay before the first retry, in ms (default 500); doubles per attempt. */
  baseDelayMs?: number;
  /** Cap on a computed backoff delay, in ms (default 30,000). */
  maxDelayMs?: number;
  /** Fraction (0–1) of the delay removed at random, to spread retries out (default 0.25). */
  jitter?: number;
  /** Longest server-requested Retry-After honoured, in ms (default 120,000); longer → give up. */
  maxRetryAfterMs?: number;
  /** Random source in [0, 1) (default `Math.random`), injectable for deterministic tests. */
  random?: () => number;
}

/**
 * The default retry policy: retries transient `ModelError`s (rate limits, overload,
 * 5xx, network, broken or idle streams, timeouts) with exponential backoff, jitter and a cap;
 * honours the server's Retry-After; never retries auth, invalid requests, context overflow
 * (the loop compacts instead), aborts, or errors that are not ModelErrors.
 *
 * @example
 * ```ts
 * const policy = createRetryPolicy({ maxAttempts: 5 });
 * const decision = policy.decide(error, attempt);
 * if (decision.retry) await sleep(decision.delayMs);
 * ```
 */
export function createRetryPolicy(options: RetryPolicyOptions = {}): RetryPolicy {
  const maxAttempts = options.maxAttempts ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.25));
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 120_000;
  const random = options.random ?? Math.random;

  return {
    decide(error: unknown, attempt: number): RetryDecision {
      if (!isModelError(error)) {
        return { retry: false, reason: `not a model error: ${String(error)}` };
      }
      if (error.code === 'CONTEXT_OVERFLOW') {
        return { retry: false, reason: 'context overflow: compact the history, then retry' };
      }
      if (!error.retryable) return { retry: false, reason: `${error.code} is not retryable` };
      if (attempt >= maxAttempts) {
        return {
          retry: false,
          reason: `${error.code}: gave up after ${attempt} of ${maxAttempts} attempts`,
        };
      }
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > maxRetryAfterMs) {
          return {
            retry: false,
            reason: `${error.code}: server asked to wait ${error.retryAfterMs} ms, more than maxRetryAfterMs ${maxRetryAfterMs}`,
          };
        }
        return {
          retry: true,
          delayMs: error.retryAfterMs,
          reason: `${error.code}: Retry-After ${error.retryAfterMs} ms`,
        };
      }
      const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      const delayMs = Math.round(exponential * (1 - jitter * random()));
      return {
        retry: true,
        delayMs,
        reason: `${error.code}: backoff ${delayMs} ms (attempt ${attempt})`,
      };
    },
  };
}
