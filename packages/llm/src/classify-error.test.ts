import { ModelError } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { classifyError, isContextOverflowMessage, retryAfterMs } from './classify-error.js';

const provider = 'deepseek';

describe('classifyError', () => {
  it.each([
    [429, 'RATE_LIMITED', true],
    [500, 'SERVER_ERROR', true],
    [502, 'SERVER_ERROR', true],
    [503, 'OVERLOADED', true],
    [529, 'OVERLOADED', true],
    [401, 'AUTH_FAILED', false],
    [403, 'AUTH_FAILED', false],
    [402, 'INSUFFICIENT_BALANCE', false],
    [422, 'INVALID_REQUEST', false],
    [400, 'INVALID_REQUEST', false],
    [408, 'REQUEST_TIMEOUT', true],
  ])('maps HTTP %i to %s (retryable %s)', (status, code, retryable) => {
    const error = classifyError({ status, body: '{"error":{"message":"x"}}' }, { provider });
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code, retryable, status, provider });
  });

  it('recognises every documented context-overflow wording, and not output-cap errors', () => {
    const overflow = [
      "This model's maximum context length is 131072 tokens. However, you requested 131134 tokens",
      'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300000 tokens.',
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
      'prompt is too long: 208310 tokens > 200000 maximum',
      'input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648',
      'This prompt is too long to fit into the model',
      'max_tokens must be at least 1, got -512.',
      'the request exceeds the available context size, try increasing it',
    ];
    for (const message of overflow) expect(isContextOverflowMessage(message), message).toBe(true);
    expect(
      isContextOverflowMessage(
        'max_tokens: 90000 > 64000, which is the maximum allowed number of output tokens',
      ),
    ).toBe(false);
    const error = classifyError(
      {
        status: 400,
        body: JSON.stringify({ error: { message: overflow[0], code: 'context_length_exceeded' } }),
      },
      { provider },
    );
    expect(error).toMatchObject({ code: 'CONTEXT_OVERFLOW', retryable: false });
  });

  it('reads vLLM error bodies', () => {
    const body = JSON.stringify({
      object: 'error',
      message:
        "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    expect(classifyError({ status: 400, body }, { provider: 'vllm' })).toMatchObject({
      code: 'CONTEXT_OVERFLOW',
    });
    const other = JSON.stringify({
      object: 'error',
      message: 'bad field',
      type: 'BadRequestError',
      code: 400,
    });
    expect(classifyError({ status: 400, body: other }, { provider: 'vllm' }).message).toContain(
      'bad field',
    );
  });

  it('honours x-should-retry and reads the request id', () => {
    const error = classifyError(
      {
        status: 500,
        body: 'oops',
        headers: { 'x-should-retry': 'false', 'x-request-id': 'req-1' },
      },
      { provider },
    );
    expect(error).toMatchObject({ code: 'SERVER_ERROR', retryable: false, requestId: 'req-1' });
  });

  it('classifies in-stream error payloads by type', () => {
    expect(
      classifyError(
        { body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
        { provider: 'anthropic' },
      ),
    ).toMatchObject({ code: 'OVERLOADED' });
    expect(
      classifyError(
        { body: '{"error":{"message":"bad","type":"invalid_request_error"}}' },
        { provider },
      ),
    ).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('classifies network errors by code and phase', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(classifyError(refused, { provider, phase: 'connect' })).toMatchObject({
      code: 'NETWORK_ERROR',
      retryable: true,
    });
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(classifyError(reset, { provider, phase: 'stream' })).toMatchObject({
      code: 'STREAM_BROKEN',
      retryable: true,
    });
    const tls = new Error('tls', {
      cause: Object.assign(new Error('cert'), { code: 'CERT_HAS_EXPIRED' }),
    });
    expect(classifyError(tls, { provider })).toMatchObject({ code: 'NETWORK_ERROR' });
  });

  it('returns an existing ModelError unchanged', () => {
    const original = new ModelError({ code: 'ABORTED', message: 'x', provider, retryable: false });
    expect(classifyError(original, { provider })).toBe(original);
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, retry-after seconds and an HTTP date', () => {
    expect(retryAfterMs({ 'retry-after-ms': '1500.4' })).toBe(1500);
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    const soon = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterMs({ 'retry-after': soon })).toBeGreaterThan(8000);
    expect(retryAfterMs({ 'retry-after': 'garbage' })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
