import type { ModelClient } from '@spine/protocol';
import { ModelConfigError } from './errors.js';
import { createAnthropicModel } from './model-anthropic.js';
import { createDeepSeekModel } from './model-deepseek.js';
import { createOpenAICompatibleModel } from './model-openai-compatible.js';
import {
  createModelTable,
  lookupModel,
  type ModelTable,
  modelAcceptsImages,
} from './model-table.js';

/** The environment variable each built-in provider reads its key from by default. */
export const DEFAULT_KEY_VARIABLES: Readonly<Record<string, string>> = {
  deepseek: 'DEEPSEEK_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** Options of {@link createModelFromName}. */
export interface ModelFromNameOptions {
  /** `provider/model`: `deepseek/deepseek-v4-flash`, `openai-compatible/qwen3`, `anthropic/…`. */
  model: string;
  /** The endpoint (required for `openai-compatible`; default: the provider's public API). */
  baseUrl?: string;
  /** The variable the key is read from at request time (default {@link DEFAULT_KEY_VARIABLES}). */
  apiKeyEnv?: string;
  /** Prices and windows (default: `createModelTable()`). */
  models?: ModelTable;
  /** Overrides the context window the table knows (default: the table's, else 128k). */
  contextWindow?: number;
  /** Images for a model that does not accept them: `error` (default) or a text `placeholder`. */
  imagesUnsupported?: 'error' | 'placeholder';
}

/** A client built from a `provider/model` name, with what Spine knows about the model. */
export interface NamedModel {
  /** The client. */
  client: ModelClient;
  /** `deepseek`, `openai-compatible`, `openai`, `anthropic`. */
  provider: string;
  /** The id sent on the wire. */
  modelId: string;
  /** Context window in tokens (option, then the model table, then 128k). */
  contextWindow: number;
  /** The variable the key is read from (the key itself is never stored). */
  apiKeyEnv: string | undefined;
  /** The endpoint, when one was given. */
  baseUrl: string | undefined;
  /** Whether the model accepts images (the model table's `images` flag; unlisted models do). */
  acceptsImages: boolean;
}

/**
 * Splits `provider/model` (the model part may itself contain slashes).
 *
 * @throws a {@link ModelConfigError} when the name has no provider or no model part.
 */
export function parseModelName(name: string): { provider: string; modelId: string } {
  const slash = name.indexOf('/');
  if (slash <= 0 || slash === name.length - 1) {
    throw new ModelConfigError({
      key: 'model',
      problem: `expected provider/model (e.g. deepseek/deepseek-v4-flash, openai-compatible/qwen3, anthropic/claude-sonnet-4-5), got "${name}"`,
    });
  }
  return { provider: name.slice(0, slash), modelId: name.slice(slash + 1) };
}

/**
 * Builds the client for a `provider/model` name with the built-in providers (`deepseek`, `openai`,
 * `openai-compatible`, `anthropic`). Keys are read from the environment at request time; only
 * the variable's name is kept. A missing key is not checked here (the first request fails).
 *
 * @throws a {@link ModelConfigError} for a malformed name, an unknown provider, `openai-compatible`
 *   without `baseUrl`, or an anthropic `baseUrl` ending in `/v1` (the client appends
 *   `/v1/messages`).
 * @example
 * ```ts
 * const { client, modelId } = createModelFromName({ model: 'deepseek/deepseek-v4-flash' });
 * ```
 */
export function createModelFromName(options: ModelFromNameOptions): NamedModel {
  const { provider, modelId } = parseModelName(options.model);
  const { baseUrl } = options;
  const apiKeyEnv = options.apiKeyEnv ?? DEFAULT_KEY_VARIABLES[provider];
  const models = options.models ?? createModelTable();
  const contextWindow =
    options.contextWindow ?? lookupModel(models, provider, modelId)?.contextWindow ?? 128_000;
  const named = (client: ModelClient): NamedModel => ({
    client,
    provider,
    modelId,
    contextWindow,
    apiKeyEnv,
    baseUrl,
    acceptsImages: modelAcceptsImages(models, provider, modelId),
  });
  const images = options.imagesUnsupported ? { imagesUnsupported: options.imagesUnsupported } : {};
  switch (provider) {
    case 'deepseek':
      return named(
        createDeepSeekModel({ apiKeyEnv, models, ...images, ...(baseUrl ? { baseUrl } : {}) }),
      );
    case 'openai':
      return named(
        createOpenAICompatibleModel({
          baseUrl: baseUrl ?? 'https://api.openai.com/v1',
          apiKeyEnv,
          models,
          ...images,
          provider: 'openai',
        }),
      );
    case 'openai-compatible':
      if (!baseUrl) {
        throw new ModelConfigError({
          key: 'baseUrl',
          problem:
            'openai-compatible models need an endpoint: set baseUrl, the URL /chat/completions is appended to (in the spine CLI: --base-url <url> or "baseUrl" in the configuration)',
        });
      }
      return named(
        createOpenAICompatibleModel({
          baseUrl,
          apiKeyEnv,
          allowNoApiKey: true,
          models,
          ...images,
          provider: 'openai-compatible',
        }),
      );
    case 'anthropic':
      // The client appends /v1/messages; a base ending in /v1 would post to /v1/v1/messages and
      // get a bare 404 that does not say why.
      if (baseUrl && /\/v1\/*$/.test(baseUrl)) {
        const base = baseUrl.replace(/\/v1\/*$/, '');
        throw new ModelConfigError({
          key: 'baseUrl',
          problem: `anthropic base URL ${baseUrl} ends with /v1, but /v1/messages is appended to it: pass --base-url ${base} (the URL /v1/messages is appended to) to the spine CLI, or { baseUrl: '${base}' }`,
        });
      }
      return named(
        createAnthropicModel({ apiKeyEnv, models, ...images, ...(baseUrl ? { baseUrl } : {}) }),
      );
    default:
      throw new ModelConfigError({
        key: 'model',
        problem: `unknown provider "${provider}" in ${options.model}; use deepseek, openai, openai-compatible or anthropic`,
      });
  }
}
