import { ModelError, type ModelErrorCode } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { createRetryPolicy } from './retry-policy.js';

function failure(code: ModelErrorCode, retryable: boolean, retryAfterMs?: number): ModelError {
  return new ModelError({ code, message: code, provider: 'deepseek', retryable, retryAfterMs });
}

describe('createRetryPolicy', () => {
  it('backs off exponentially with a cap and no jitter when jitter is 0', () => {
    const policy = createRetryPolicy({
      maxAttempts: 10,
      baseDelayMs: 100,
      maxDelayMs: 1000,
      jitter: 0,
    });
    const delays = [1, 2, 3, 4, 5].map((attempt) =>
      policy.decide(failure('SERVER_ERROR', true), attempt),
    );
    expect(delays.map((decision) => (decision.retry ? decision.delayMs : -1))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
  });

  it('removes at most the jitter fraction of the delay', () => {
    const policy = createRetryPolicy({ baseDelayMs: 1000, jitter: 0.5, random: () => 0.999 });
    const decision = policy.decide(failure('OVERLOADED', true), 1);
    const delay = decision.retry ? decision.delayMs : 0;
    expect(delay).toBeGreaterThanOrEqual(500);
    expect(delay).toBeLessThanOrEqual(501);
  });

  it('honours Retry-After and gives up when it is longer than allowed', () => {
    const policy = createRetryPolicy({ maxRetryAfterMs: 5000 });
    expect(policy.decide(failure('RATE_LIMITED', true, 3000), 1)).toMatchObject({
      retry: true,
      delayMs: 3000,
    });
    expect(policy.decide(failure('RATE_LIMITED', true, 60_000), 1)).toMatchObject({ retry: false });
  });

  it('stops after maxAttempts and never retries auth, invalid requests, overflow, aborts or foreign errors', () => {
    const policy = createRetryPolicy({ maxAttempts: 3 });
    expect(policy.decide(failure('SERVER_ERROR', true), 3).retry).toBe(false);
    expect(policy.decide(failure('AUTH_FAILED', false), 1).retry).toBe(false);
    expect(policy.decide(failure('INVALID_REQUEST', false), 1).retry).toBe(false);
    expect(policy.decide(failure('ABORTED', false), 1).retry).toBe(false);
    const overflow = policy.decide(failure('CONTEXT_OVERFLOW', false), 1);
    expect(overflow).toMatchObject({ retry: false, reason: expect.stringContaining('compact') });
    expect(policy.decide(new Error('bug'), 1).retry).toBe(false);
  });
});
