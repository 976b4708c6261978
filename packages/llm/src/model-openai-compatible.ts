import type {
  ModelClient,
  ModelError,
  ModelRequest,
  ModelStreamEvent,
  ModelStreamOptions,
} from '@spine/protocol';
import type { Dispatcher } from 'undici';
import { MissingApiKeyError } from './errors.js';
import { applyImagePolicy, type ImagePolicy, imageFallbackOf } from './internal/image-encode.js';
import { OpenAIRequestEncoder } from './internal/openai-encode.js';
import { OpenAIStreamState } from './internal/openai-stream-state.js';
import { streamModel } from './internal/transport.js';
import {
  createModelTable,
  lookupModel,
  type ModelTable,
  modelAcceptsImages,
} from './model-table.js';
import type { OpenAIDialect } from './types.js';

/** Options of {@link createOpenAICompatibleModel}. */
export interface OpenAICompatibleModelOptions {
  /** Base URL; the client appends `/chat/completions` (e.g. `https://api.deepseek.com`, `http://localhost:11434/v1`). */
  baseUrl: string;
  /** The API key. When absent, `apiKeyEnv` is read at request time. */
  apiKey?: string;
  /** Environment variable holding the key (e.g. `DEEPSEEK_API_KEY`). */
  apiKeyEnv?: string;
  /** Send no Authorization header when no key is configured (local servers); default false. */
  allowNoApiKey?: boolean;
  /** Provider name recorded on events and errors (default `openai-compatible`). */
  provider?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * Fail with STREAM_IDLE when no data event arrives for this long (default 120,000 ms; 0
   * disables). Streaming only: a non-streaming request relies on `totalTimeoutMs`.
   */
  idleTimeoutMs?: number;
  /** Fail with REQUEST_TIMEOUT after this long in total (default 900,000 ms; 0 disables). */
  totalTimeoutMs?: number;
  /** An undici dispatcher (proxy, custom DNS, connection pool). */
  dispatcher?: Dispatcher;
  /** Stream (default) or ask for one JSON body. */
  stream?: boolean;
  /** Body shape for this provider; defaults depend on `provider`. */
  dialect?: Partial<OpenAIDialect>;
  /** Model table used to price usage (default: {@link DEFAULT_MODELS}). */
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

/** Dialect defaults per provider name. */
function dialectFor(provider: string, override: Partial<OpenAIDialect> = {}): OpenAIDialect {
  const deepseek = provider === 'deepseek';
  return {
    reasoningHistory: deepseek ? 'tool-calls' : 'never',
    maxTokensField: provider === 'openai' ? 'max_completion_tokens' : 'max_tokens',
    reasoningStyle: deepseek ? 'deepseek' : 'effort',
    includeUsage: true,
    ...override,
  };
}

/**
 * A `ModelClient` for any OpenAI-compatible chat-completions endpoint (DeepSeek,
 * OpenAI, OpenRouter, vLLM, llama.cpp server, Ollama). Streams over SSE, accumulates tool
 * calls by index, reads reasoning from `reasoning_content` / `reasoning`, maps usage to
 * disjoint buckets and prices it from the model table. It never retries.
 *
 * @throws a {@link ModelError} from `stream()`, with a stable code (see `classifyError`).
 * @example
 * ```ts
 * const model = createOpenAICompatibleModel({ baseUrl: 'http://localhost:11434/v1', allowNoApiKey: true });
 * for await (const event of model.stream({ model: 'qwen3', system: '', messages, tools: [] })) {
 *   if (event.type === 'text-delta') process.stdout.write(event.text);
 * }
 * ```
 */
export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): ModelClient {
  const provider = options.provider ?? 'openai-compatible';
  const encoder = new OpenAIRequestEncoder(dialectFor(provider, options.dialect));
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const table = options.models ?? createModelTable();
  const streaming = options.stream !== false;
  const images: ImagePolicy = {
    provider,
    accepts: (model) => options.acceptsImages ?? modelAcceptsImages(table, provider, model),
    unsupported: options.imagesUnsupported,
  };

  function apiKey(): string | undefined {
    const key = options.apiKey ?? (options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined);
    if (key === undefined || key === '') {
      if (options.allowNoApiKey) return undefined;
      throw new MissingApiKeyError({ provider, apiKeyEnv: options.apiKeyEnv });
    }
    return key;
  }

  const accept = streaming ? 'text/event-stream' : 'application/json';
  const headers = (): Record<string, string> => {
    const key = apiKey();
    const values: Record<string, string> = { 'content-type': 'application/json', accept };
    if (options.headers) Object.assign(values, options.headers);
    if (key !== undefined) values.authorization = `Bearer ${key}`;
    return values;
  };
  // Non-streaming servers may hold the headers until the answer is complete.
  const idleTimeoutMs = streaming ? (options.idleTimeoutMs ?? 120_000) : 0;
  const totalTimeoutMs = options.totalTimeoutMs ?? 900_000;
  const apiKeyHint = options.apiKeyEnv
    ? `set ${options.apiKeyEnv} or the apiKey option`
    : 'set the apiKey option';

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
        // The bytes `encodeRequest` describes, framed around the cached history in place.
        body: encoder.encodeBody(request, streaming),
        dispatcher: options.dispatcher,
        signal: streamOptions.signal,
        idleTimeoutMs,
        totalTimeoutMs,
        apiKeyHint,
        handler: new OpenAIStreamState(provider),
        price: lookupModel(table, provider, request.model)?.price,
      });
    },
  };
}
