import { type ModelErrorCode, SpineError } from './errors.js';
import type { ImageBytes } from './image-check.js';
import type { JsonValue } from './json.js';
import type { AssistantMessage, Message } from './messages.js';
import type { ToolSpec } from './tool-spec.js';
import type { Usage } from './usage.js';

/** A provider-neutral model request. Built once, it can go to any adapter. */
export interface ModelRequest {
  /** The model id as the provider names it (configuration, never a constant). */
  model: string;
  /** The system prompt. */
  system: string;
  /** History, as derived by `SessionLog.deriveMessages()`. */
  messages: readonly Message[];
  /** Tools the model may call. */
  tools: readonly ToolSpec[];
  /** Cap on output tokens (reasoning included where the provider counts it so). */
  maxOutputTokens?: number;
  /** Sampling temperature, where the model honours it. */
  temperature?: number;
  /** Reasoning / thinking control; adapters map it to the provider's field. */
  reasoning?: {
    enabled: boolean;
    effort?: 'low' | 'medium' | 'high' | 'max';
    budgetTokens?: number;
  };
  /** Tool choice. */
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  /** Provider-specific fields merged into the body last. */
  providerOptions?: { [key: string]: JsonValue };
  /** The session id (some providers isolate caches per user id). */
  sessionId?: string;
  /**
   * Where encoders read the bytes of the messages' images (the session's blob store). Not part
   * of the request hash: the image parts carry each image's SHA-256.
   */
  images?: ImageBytes;
  /**
   * `placeholder`: each image in the messages is sent as a line of text instead (the model does
   * not accept images, and the client was configured to say so rather than refuse). Set from
   * {@link ModelClient.imageFallback} when the request is built, recorded in its
   * `request/header` and covered by its hash, so a replayed request is encoded the same way
   * whatever the client's configuration is then.
   */
  imageFallback?: 'placeholder';
}

/** Provider-neutral finish reasons. */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'tool-calls'
  | 'content-filter'
  | 'refusal'
  | 'context-overflow'
  | 'pause'
  | 'other';

/** Events of one streamed model response. */
export type ModelStreamEvent =
  | { type: 'start'; model?: string; requestId?: string }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | {
      type: 'finish';
      /** The whole assistant message; tool-call arguments are raw text, possibly invalid JSON. */
      message: AssistantMessage;
      finishReason: FinishReason;
      /** The provider's own finish reason string. */
      rawFinishReason?: string;
      usage?: Usage;
      /** Odd output that was tolerated (an unknown finish reason, a chunk that is not an object). */
      warnings?: string[];
    };

/** Options of {@link ModelClient.stream}. */
export interface ModelStreamOptions {
  /** Cancels the request. */
  signal?: AbortSignal;
}

/**
 * A streaming model client. `@spine/llm` implements it for OpenAI-compatible endpoints
 * (DeepSeek default) and Anthropic.
 *
 * Contract: `stream` yields deltas then exactly one `finish` event, or throws a
 * {@link ModelError} with a stable code. It never retries on its own: retries belong to the
 * agent loop, which records them. Malformed model output is returned as data in `finish`
 * (raw tool-call arguments, `warnings`), not thrown.
 */
export interface ModelClient {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** Provider name, recorded in request headers (`deepseek`, `openai-compatible`, `anthropic`). */
  readonly provider: string;
  /** Sends the request and streams the response. */
  stream(request: ModelRequest, options?: ModelStreamOptions): AsyncIterable<ModelStreamEvent>;
  /**
   * The exact wire body `stream` would send for `request` (deterministic), so a recorded
   * request can be rebuilt and hashed byte for byte. Optional for third-party clients.
   */
  encodeRequest?(request: ModelRequest): string;
  /**
   * The fallback this client applies to the images of a request for `model`: `placeholder`
   * when it sends text in their place, undefined when it sends them (or refuses them). The
   * agent loop records it in each request so replay encodes it the same way. Optional.
   */
  imageFallback?(model: string): 'placeholder' | undefined;
}

/** Constructor options of {@link ModelError}. */
export interface ModelErrorOptions {
  code: ModelErrorCode;
  message: string;
  /** Provider name. */
  provider: string;
  /** HTTP status, when there was one. */
  status?: number;
  /** Whether a retry may succeed (transient failures). */
  retryable: boolean;
  /** Server-requested delay before retrying (Retry-After), in ms. */
  retryAfterMs?: number;
  /** Provider request id, for support tickets. */
  requestId?: string;
  cause?: unknown;
}

/** A classified model request failure. The agent loop decides on retry from `code` and `retryable`. */
export class ModelError extends SpineError {
  declare readonly code: ModelErrorCode;
  /** Provider name. */
  readonly provider: string;
  /** HTTP status, when there was one. */
  readonly status: number | undefined;
  /** Whether a retry may succeed. */
  readonly retryable: boolean;
  /** Server-requested delay in ms. */
  readonly retryAfterMs: number | undefined;
  /** Provider request id. */
  readonly requestId: string | undefined;

  constructor(options: ModelErrorOptions) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.provider = options.provider;
    this.status = options.status;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.requestId = options.requestId;
  }
}

/**
 * True when `value` is a {@link ModelError} from any copy of this package (brand check, not
 * `instanceof`, so duplicate installs agree).
 */
export function isModelError(value: unknown): value is ModelError {
  return SpineError.isInstance(value) && 'retryable' in value && 'provider' in value;
}

/** A retry decision for one failed attempt. */
export type RetryDecision =
  | { retry: true; delayMs: number; reason: string }
  | { retry: false; reason: string };

/**
 * Decides whether and when to retry a failed attempt. `@spine/llm` ships the default
 * (exponential backoff with jitter and a cap, Retry-After honoured).
 */
export interface RetryPolicy {
  /** `attempt` is the number of the attempt that failed, starting at 1. */
  decide(error: unknown, attempt: number): RetryDecision;
}
