import type {
  ModelClient,
  ModelError,
  ModelRequest,
  ModelStreamEvent,
  ModelStreamOptions,
} from '@spine/protocol';
import type { Dispatcher } from 'undici';
import { MissingApiKeyError } from './errors.js';
import { AnthropicRequestEncoder } from './internal/anthropic-encode.js';
import { AnthropicStreamState } from './internal/anthropic-stream-state.js';
import { applyImagePolicy, type ImagePolicy, imageFallbackOf } from './internal/image-encode.js';
import { streamModel } from './internal/transport.js';
import {
  createModelTable,
  lookupModel,
  type ModelTable,
  modelAcceptsImages,
} from './model-table.js';

/** Options of {@link createAnthropicModel}. */
export interface AnthropicModelOptions {
  /** The API key; when absent, `apiKeyEnv` (default `ANTHROPIC_API_KEY`) is read at request time. */
  apiKey?: string;
  /** Environment variable holding the key (default `ANTHROPIC_API_KEY`). */
  apiKeyEnv?: string;
  /** Base URL (default `https://api.anthropic.com`); the client appends `/v1/messages`. */
  baseUrl?: string;
  /** Put `cache_control` breakpoints on tools, system prompt and the history tail (default true). */
  cache?: boolean;
  /** `anthropic-version` header (default `2023-06-01`). */
  version?: string;
  /** `anthropic-beta` values, joined with commas. */
  betas?: string[];
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * Fail with STREAM_IDLE when no data event arrives for this long (default 120,000 ms; 0
   * disables). Streaming only: a non-streaming request relies on `totalTimeoutMs`.
   */
  idleTimeoutMs?: number;
  /** Fail with REQUEST_TIMEOUT after this long in total (default 900,000 ms; 0 disables). */
  totalTimeoutMs?: number;
  /** An undici dispatcher. */
  dispatcher?: Dispatcher;
  /** Stream (default) or ask for one JSON body. */
  stream?: boolean;
  /** Model table for `max_tokens` defaults and prices (default: {@link DEFAULT_MODELS}). */
  models?: ModelTable;
  /**
   * Whether the model accepts images (default: the model table's `images` flag; models the
   * table does not list are assumed to).
   */
  acceptsImages?: boolean;
  /**
   * A request with images for a model that does not accept them: `error` (default) throws
   * `ImagesUnsupportedError` before any request; `placeholder` sends a text line in each
   * image's place. Never a silent drop.
   */
  imagesUnsupported?: 'error' | 'placeholder';
}

/**
 * A `ModelClient` for the Anthropic Messages API: text, `tool_use` with input JSON
 * deltas, thinking blocks with signatures (sent back byte for byte), usage with cache reads and
 * writes, and `cache_control` on the stable prefix. It never retries.
 *
 * @throws a {@link ModelError} from `stream()`, with a stable code (see `classifyError`).
 * @example
 * ```ts
 * const model = createAnthropicModel({ cache: true });
 * for await (const event of model.stream({ model: 'claude-sonnet-4-5', system: 'Be terse.', messages, tools: [] })) {
 *   if (event.type === 'text-delta') process.stdout.write(event.text);
 * }
 * ```
 */
export function createAnthropicModel(options: AnthropicModelOptions = {}): ModelClient {
  const provider = 'anthropic';
  const table = options.models ?? createModelTable();
  const apiKeyEnv = options.apiKeyEnv ?? 'ANTHROPIC_API_KEY';
  const streaming = options.stream !== false;
  const encoder = new AnthropicRequestEncoder({
    cache: options.cache !== false,
    defaultMaxTokens: (model) =>
      Math.min(lookupModel(table, provider, model)?.maxOutputTokens ?? 8192, 32_000),
  });
  const images: ImagePolicy = {
    provider,
    accepts: (model) => options.acceptsImages ?? modelAcceptsImages(table, provider, model),
    unsupported: options.imagesUnsupported,
  };
  const url = `${(options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`;

  const accept = streaming ? 'text/event-stream' : 'application/json';
  const headers = (): Record<string, string> => {
    const key = options.apiKey ?? process.env[apiKeyEnv];
    if (key === undefined || key === '') throw new MissingApiKeyError({ provider, apiKeyEnv });
    const values: Record<string, string> = {
      'content-type': 'application/json',
      accept,
      'x-api-key': key,
      'anthropic-version': options.version ?? '2023-06-01',
    };
    if (options.headers) Object.assign(values, options.headers);
    if (options.betas?.length) values['anthropic-beta'] = options.betas.join(',');
    return values;
  };

  return {
    specificationVersion: 1,
    provider,
    encodeRequest: (request: ModelRequest): string =>
      encoder.encode(applyImagePolicy(request, images), streaming),
    imageFallback: (model: string) => imageFallbackOf(images, model),
    stream(
      original: ModelRequest,
      streamOptions: ModelStreamOptions = {},
    ): AsyncGenerator<ModelStreamEvent> {
      // Checked before anything is sent: a model that does not take images never sees a request.
      const request = applyImagePolicy(original, images);
      return streamModel({
        provider,
        url,
        headers,
        // The bytes `encodeRequest` describes, closed turns straight from their cached bytes.
        body: encoder.encodeChunks(request, streaming),
        dispatcher: options.dispatcher,
        signal: streamOptions.signal,
        // Non-streaming servers may hold the headers until the answer is complete.
        idleTimeoutMs: streaming ? (options.idleTimeoutMs ?? 120_000) : 0,
        totalTimeoutMs: options.totalTimeoutMs ?? 900_000,
        apiKeyHint: `set ${apiKeyEnv} or the apiKey option`,
        handler: new AnthropicStreamState(provider),
        price: lookupModel(table, provider, request.model)?.price,
      });
    },
  };
}
