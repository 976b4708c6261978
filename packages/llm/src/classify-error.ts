import type { ModelError, ModelErrorCode } from '@spine/protocol';
import { isModelError } from '@spine/protocol';
import { modelError } from './errors.js';

/** An HTTP error response, as seen before any body was streamed (or an in-stream error payload). */
export interface HttpFailure {
  /** HTTP status; omit for an error that arrived inside a 200 stream. */
  status?: number;
  /** The response body text (JSON or not). */
  body: string;
  /** Response headers, lower-case names. */
  headers?: Record<string, string | string[] | undefined>;
}

/** Options of {@link classifyError}. */
export interface ClassifyErrorOptions {
  /** Provider name recorded on the error. */
  provider: string;
  /** What to tell the user to set on 401/403, e.g. `DEEPSEEK_API_KEY`. */
  apiKeyHint?: string;
  /** Where a network failure happened: before the response (`connect`) or while streaming. */
  phase?: 'connect' | 'stream';
}

/** Context-overflow wordings of DeepSeek, OpenAI, Anthropic, OpenRouter, vLLM and llama.cpp. */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /maximum context length is \d+ tokens/i,
  /context_length_exceeded/i,
  /input tokens exceed the configured limit of \d+ tokens/i,
  /exceeds the context window/i,
  /prompt is too long: \d+ tokens > \d+ maximum/i,
  /input length and .?max_tokens.? exceed context limit/i,
  /is too long to fit into the model/i,
  /max_tokens must be at least 1, got -\d+/i,
  /exceed_context_size_error/i,
  /exceeds the available context size/i,
  /maximum context length/i,
];

/** Anthropic / OpenAI error `type` values that say what happened without a status. */
const TYPE_CODES: Record<string, ModelErrorCode> = {
  overloaded_error: 'OVERLOADED',
  rate_limit_error: 'RATE_LIMITED',
  api_error: 'SERVER_ERROR',
  server_error: 'SERVER_ERROR',
  timeout_error: 'REQUEST_TIMEOUT',
  authentication_error: 'AUTH_FAILED',
  permission_error: 'AUTH_FAILED',
  billing_error: 'INSUFFICIENT_BALANCE',
  not_found_error: 'MODEL_NOT_FOUND',
  request_too_large: 'CONTEXT_OVERFLOW',
  invalid_request_error: 'INVALID_REQUEST',
};

/** Network error codes of Node and undici that mean "no usable connection". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** True when `message` is a context-window overflow in any known provider's wording. */
export function isContextOverflowMessage(message: string): boolean {
  if (/maximum allowed number of output tokens/i.test(message)) return false;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(message));
}

/**
 * Classifies any failure of a model request into a `ModelError` with a stable code:
 * an {@link HttpFailure} (status + body + headers), an in-stream error payload, a Node/undici
 * network error, or an existing ModelError (returned unchanged).
 *
 * @example
 * ```ts
 * const error = classifyError({ status: 429, body: '{}', headers: { 'retry-after': '2' } }, { provider: 'deepseek' });
 * error.code; // 'RATE_LIMITED', error.retryAfterMs === 2000
 * ```
 */
export function classifyError(failure: unknown, options: ClassifyErrorOptions): ModelError {
  if (isModelError(failure)) return failure;
  if (isHttpFailure(failure)) return classifyHttp(failure, options);
  const code = errorCode(failure);
  const text = failure instanceof Error ? failure.message : String(failure);
  if (
    code !== undefined &&
    (NETWORK_CODES.has(code) || code.startsWith('ERR_TLS') || code.includes('CERT'))
  ) {
    const streaming = options.phase === 'stream';
    return modelError(
      options.provider,
      streaming ? 'STREAM_BROKEN' : 'NETWORK_ERROR',
      streaming
        ? `The ${options.provider} stream broke mid-way (${code}: ${text}); retry the request.`
        : `Could not reach ${options.provider} (${code}: ${text}); check the base URL and network, then retry.`,
      { cause: failure },
    );
  }
  return modelError(
    options.provider,
    options.phase === 'stream' ? 'STREAM_BROKEN' : 'NETWORK_ERROR',
    text,
    {
      cause: failure,
    },
  );
}

function isHttpFailure(value: unknown): value is HttpFailure {
  return (
    typeof value === 'object' && value !== null && 'body' in value && typeof value.body === 'string'
  );
}

function errorCode(value: unknown): string | undefined {
  for (let current = value, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

interface ParsedBody {
  message: string;
  type: string | undefined;
  code: string | undefined;
  requestId: string | undefined;
}

function parseBody(body: string): ParsedBody {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return {
      message: body.trim().slice(0, 2000),
      type: undefined,
      code: undefined,
      requestId: undefined,
    };
  }
  const root = (json ?? {}) as Record<string, unknown>;
  const inner = (
    typeof root.error === 'object' && root.error !== null ? root.error : root
  ) as Record<string, unknown>;
  const message =
    typeof inner.message === 'string'
      ? inner.message
      : typeof root.error === 'string'
        ? root.error
        : body.slice(0, 2000);
  return {
    message,
    type: typeof inner.type === 'string' ? inner.type : undefined,
    code: inner.code === undefined || inner.code === null ? undefined : String(inner.code),
    requestId: typeof root.request_id === 'string' ? root.request_id : undefined,
  };
}

function header(failure: HttpFailure, name: string): string | undefined {
  const value = failure.headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads `retry-after-ms` (ms) or `retry-after` (seconds or an HTTP date) into ms. */
export function retryAfterMs(headers: HttpFailure['headers']): number | undefined {
  const failure: HttpFailure = { body: '', headers };
  const ms = header(failure, 'retry-after-ms');
  if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0)
    return Math.round(Number(ms));
  const after = header(failure, 'retry-after');
  if (after === undefined) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && after.trim() !== '')
    return Math.max(0, Math.round(seconds * 1000));
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function classifyHttp(failure: HttpFailure, options: ClassifyErrorOptions): ModelError {
  const { provider } = options;
  const parsed = parseBody(failure.body);
  const status = failure.status;
  const requestId =
    header(failure, 'x-request-id') ?? header(failure, 'request-id') ?? parsed.requestId;
  const extra = { status, requestId, retryAfterMs: retryAfterMs(failure.headers) };
  const said = `${provider}${status === undefined ? '' : ` answered ${status}`}: ${parsed.message}`;
  const code = codeOf(status, parsed);
  const shouldRetry = header(failure, 'x-should-retry');
  const retryable = shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : undefined;
  const advice: Record<ModelErrorCode, string> = {
    CONTEXT_OVERFLOW:
      'the request exceeds the model context window; compact the history or lower max tokens',
    AUTH_FAILED: `check the API key${options.apiKeyHint ? ` (${options.apiKeyHint})` : ''}; this is never retried`,
    INSUFFICIENT_BALANCE: 'the account has no balance left; top it up',
    MODEL_NOT_FOUND: 'check the model id in your configuration (list them with listRemoteModels)',
    INVALID_REQUEST:
      'the provider rejected the request body; it will not succeed if re-sent unchanged',
    RATE_LIMITED: 'rate limited; retry after the delay',
    OVERLOADED: 'the provider is overloaded; retry later',
    SERVER_ERROR: 'provider-side failure; retry',
    REQUEST_TIMEOUT: 'the provider timed out; retry',
    NETWORK_ERROR: 'retry',
    STREAM_BROKEN: 'retry',
    STREAM_IDLE: 'retry',
    ABORTED: 'the request was cancelled',
  };
  return modelError(provider, code, `${said} (${advice[code]})`, {
    ...extra,
    ...(retryable === undefined ? {} : { retryable }),
  });
}

function codeOf(status: number | undefined, parsed: ParsedBody): ModelErrorCode {
  const haystack = `${parsed.message} ${parsed.type ?? ''} ${parsed.code ?? ''}`;
  if (isContextOverflowMessage(haystack) || status === 413) return 'CONTEXT_OVERFLOW';
  if (status === 401 || status === 403) return 'AUTH_FAILED';
  if (status === 402) return 'INSUFFICIENT_BALANCE';
  if (status === 404) return /model/i.test(parsed.message) ? 'MODEL_NOT_FOUND' : 'INVALID_REQUEST';
  if (status === 408) return 'REQUEST_TIMEOUT';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503 || status === 529) return 'OVERLOADED';
  if (status === 504) return 'REQUEST_TIMEOUT';
  if (status !== undefined && status >= 500) return 'SERVER_ERROR';
  if (status === 409) return 'SERVER_ERROR';
  const byType = parsed.type === undefined ? undefined : TYPE_CODES[parsed.type];
  if (byType) return byType;
  if (status === undefined) return 'SERVER_ERROR';
  return 'INVALID_REQUEST';
}
