import { isModelError, type RetryDecision, type RetryPolicy } from '@spine/protocol';

/** Options of {@link createFallbackRetryPolicy}. */
export interface FallbackRetryPolicyOptions {
  /** Attempts per step, the first included. Default 4. */
  maxAttempts?: number;
  /** Delay before the second attempt, doubled each time. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap on one delay. Default 8,000 ms. */
  maxDelayMs?: number;
}

/**
 * The policy the agent uses when none is given: transient model errors (`retryable: true`)
 * are retried with exponential backoff, a server's Retry-After wins, everything else fails.
 * `@spine/llm`'s `createRetryPolicy()` adds jitter and per-code limits; prefer it.
 */
export function createFallbackRetryPolicy(options: FallbackRetryPolicyOptions = {}): RetryPolicy {
  const maxAttempts = options.maxAttempts ?? 4;
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 8_000;
  return {
    decide(error: unknown, attempt: number): RetryDecision {
      if (!isModelError(error) || !error.retryable) {
        return { retry: false, reason: 'not a transient error' };
      }
      if (attempt >= maxAttempts)
        return { retry: false, reason: `gave up after ${attempt} attempts` };
      const after = error.retryAfterMs;
      const delayMs =
        after !== undefined ? Math.min(after, cap * 4) : Math.min(cap, base * 2 ** (attempt - 1));
      return {
        retry: true,
        delayMs,
        reason: `${error.code}, attempt ${attempt} of ${maxAttempts}`,
      };
    },
  };
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
