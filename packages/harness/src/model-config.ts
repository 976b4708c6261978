import type { ModelConfigError, NamedModel } from '@spine/llm';
import type { SpineConfig } from './config/schema.js';
import { MissingKeyError } from './errors.js';

/** The model a configuration names, with what Spine knows about it. */
export type ResolvedModel = NamedModel;

/**
 * Builds the model client for a configuration (llm's `createModelFromName`). Keys are read from
 * environment variables at request time; only the variable's name is kept.
 *
 * @throws a {@link ModelConfigError} for a malformed model name, an unknown provider, a missing
 *   `--base-url` for openai-compatible, or an anthropic base URL ending in `/v1`.
 * @throws a {@link MissingKeyError} with `requireKey` when the key variable is unset.
 */
export async function resolveModel(
  config: SpineConfig,
  options: { requireKey?: boolean } = {},
): Promise<ResolvedModel> {
  // Loaded here, not at import: commands that never build a model start without it.
  const { createModelFromName, createModelTable, DEFAULT_KEY_VARIABLES, parseModelName } =
    await import('@spine/llm');
  const { provider } = parseModelName(config.model);
  const apiKeyEnv = config.apiKeyEnv ?? DEFAULT_KEY_VARIABLES[provider];
  if (
    options.requireKey &&
    provider !== 'openai-compatible' &&
    apiKeyEnv &&
    !process.env[apiKeyEnv]
  )
    // Fail before a session is created; `spine demo` works without any key.
    throw new MissingKeyError({ provider, variable: apiKeyEnv });
  return createModelFromName({
    model: config.model,
    models: createModelTable(config.models),
    ...(config.apiKeyEnv ? { apiKeyEnv: config.apiKeyEnv } : {}),
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    ...(config.contextWindow === undefined ? {} : { contextWindow: config.contextWindow }),
    ...(config.imageFallback ? { imagesUnsupported: config.imageFallback } : {}),
  });
}
