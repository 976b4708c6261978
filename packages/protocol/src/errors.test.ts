import { describe, expect, it } from 'vitest';
import { assertSpecificationVersion, SpineError, UnsupportedSpecificationError } from './errors.js';
import { ModelError } from './model-client.js';

describe('SpineError', () => {
  it('is recognised across copies by its brand, not by prototype', () => {
    const error = new ModelError({
      code: 'RATE_LIMITED',
      message: 'slow down',
      provider: 'deepseek',
      retryable: true,
      retryAfterMs: 2000,
    });
    expect(SpineError.isInstance(error)).toBe(true);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.name).toBe('ModelError');
    expect(error.retryAfterMs).toBe(2000);
    const foreign = Object.assign(Object.create(null), { [Symbol.for('spine.error')]: true });
    expect(SpineError.isInstance(foreign)).toBe(true);
    expect(SpineError.isInstance(new Error('plain'))).toBe(false);
    expect(SpineError.isInstance(null)).toBe(false);
  });

  it('keeps the cause', () => {
    const cause = new Error('socket hang up');
    expect(new SpineError({ code: 'NETWORK_ERROR', message: 'x', cause }).cause).toBe(cause);
  });

  it('rejects an unknown specification version', () => {
    expect(() => assertSpecificationVersion('SessionStore', { specificationVersion: 2 })).toThrow(
      UnsupportedSpecificationError,
    );
    expect(() =>
      assertSpecificationVersion('SessionStore', { specificationVersion: 1 }),
    ).not.toThrow();
  });
});
