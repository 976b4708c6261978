import { ModelError, type ModelErrorCode, SpineError } from '@spine/protocol';

/** Thrown when a model table entry or client option is unusable. */
export class ModelConfigError extends SpineError {
  /** The option or table key at fault. */
  readonly key: string;

  constructor(options: { key: string; problem: string }) {
    super({
      code: 'INVALID_CONFIG',
      message: `Invalid model configuration at "${options.key}": ${options.problem}`,
    });
    this.key = options.key;
  }
}

/** Thrown (as a `ModelError` with code AUTH_FAILED) when no API key is configured. */
export class MissingApiKeyError extends ModelError {
  constructor(options: { provider: string; apiKeyEnv?: string }) {
    const where = options.apiKeyEnv
      ? `set the ${options.apiKeyEnv} environment variable or pass { apiKey }`
      : 'pass { apiKey } (or { apiKeyEnv } naming a variable that holds it)';
    super({
      code: 'AUTH_FAILED',
      provider: options.provider,
      retryable: false,
      message: `No API key for ${options.provider}: ${where}.`,
    });
  }
}

/** Builds a `ModelError`; the small wrapper keeps call sites on one line. */
export function modelError(
  provider: string,
  code: ModelErrorCode,
  message: string,
  extra: {
    status?: number;
    retryable?: boolean;
    retryAfterMs?: number;
    requestId?: string;
    cause?: unknown;
  } = {},
): ModelError {
  return new ModelError({
    code,
    provider,
    message,
    retryable: extra.retryable ?? RETRYABLE_CODES.has(code),
    status: extra.status,
    retryAfterMs: extra.retryAfterMs,
    requestId: extra.requestId,
    cause: extra.cause,
  });
}

/** Codes that are transient by nature: a later identical request may succeed. */
export const RETRYABLE_CODES: ReadonlySet<ModelErrorCode> = new Set<ModelErrorCode>([
  'RATE_LIMITED',
  'OVERLOADED',
  'SERVER_ERROR',
  'NETWORK_ERROR',
  'STREAM_BROKEN',
  'STREAM_IDLE',
  'REQUEST_TIMEOUT',
]);

/**
 * Thrown before any request when an image's bytes are not in the request's blob store, or do
 * not hash to the SHA-256 the log recorded (code `BLOB_MISSING`).
 */
export class ImageBlobError extends SpineError {
  /** The SHA-256 the message referenced. */
  readonly sha256: string;

  constructor(options: { sha256: string; problem: 'missing' | 'altered' }) {
    super({
      code: 'BLOB_MISSING',
      message:
        options.problem === 'missing'
          ? `image blob ${options.sha256} is not in the session's blob store; the session's blob folder is incomplete (run \`spine replay --verify\`)`
          : `image blob ${options.sha256} was altered: its bytes no longer hash to the recorded SHA-256 (run \`spine replay --verify\`)`,
    });
    this.sha256 = options.sha256;
  }
}

/**
 * Thrown before any request when a message carries images and the model does not accept them
 * (the model table says so) and the client was not told to send a text placeholder instead.
 */
export class ImagesUnsupportedError extends SpineError {
  /** The provider name. */
  readonly provider: string;
  /** The model id. */
  readonly model: string;

  constructor(options: { provider: string; model: string }) {
    super({
      code: 'IMAGES_UNSUPPORTED',
      message: `${options.provider}/${options.model} does not accept images; choose a model that does, or send a text placeholder instead (imagesUnsupported: 'placeholder', CLI --image-fallback placeholder)`,
    });
    this.provider = options.provider;
    this.model = options.model;
  }
}
