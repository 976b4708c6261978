import type { ModelClient } from '@spine/protocol';
import type { SpineConfig } from './config/schema.js';
import { MissingKeyError, UsageError } from './errors.js';

/** The model a configuration names, with what Spine knows about it. */
export interface ResolvedModel {
  /** The client. */
  client: ModelClient;
  /** `deepseek`, `openai-compatible`, `openai`, `anthropic`. */
  provider: string;
  /** The id sent on the wire. */
  modelId: string;
  /** Context window in tokens (configuration, then the model table, then 128k). */
  contextWindow: number;
  /** The variable the key is read from (the key itself is never stored or logged). */
  apiKeyEnv: string | undefined;
  /** The endpoint. */
  baseUrl: string | undefined;
}

/** Default key variables per provider. */
export const DEFAULT_KEY_VARIABLES: Readonly<Record<string, string>> = {
  deepseek: 'DEEPSEEK_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** Splits `provider/model` (the model part may itself contain slashes). */
export function parseModelName(name: string): { provider: string; modelId: string } {
  const slash = name.indexOf('/');
  if (slash <= 0 || slash === name.length - 1) {
    throw new UsageError({
      message: `--model expects provider/model (e.g. deepseek/deepseek-v4-flash, openai-compatible/qwen3, anthropic/claude-sonnet-4-5), got "${name}"`,
    });
  }
  return { provider: name.slice(0, slash), modelId: name.slice(slash + 1) };
}

/**
 * Builds the model client for a configuration. Keys are read from environment variables at
 * request time; only the variable's name is kept.
 *
 * @throws {UsageError} for an unknown provider, a missing `--base-url` for openai-compatible, or
 *   an anthropic base URL ending in `/v1` (the client appends `/v1/messages`).
 * @throws {MissingKeyError} with `requireKey` when the key variable is unset.
 */
export async function resolveModel(
  config: SpineConfig,
  options: { requireKey?: boolean } = {},
): Promise<ResolvedModel> {
  const { provider, modelId } = parseModelName(config.model);
  const llm = await import('@spine/llm');
  const apiKeyEnv = config.apiKeyEnv ?? DEFAULT_KEY_VARIABLES[provider];
  if (
    options.requireKey &&
    provider !== 'openai-compatible' &&
    apiKeyEnv &&
    !process.env[apiKeyEnv]
  ) {
    // Fail before a session is created; `spine demo` works without any key.
    throw new MissingKeyError({ provider, variable: apiKeyEnv });
  }
  const models = llm.createModelTable(config.models);
  const info = llm.lookupModel(models, provider, modelId);
  const contextWindow = config.contextWindow ?? info?.contextWindow ?? 128_000;
  const base = { provider, modelId, contextWindow, apiKeyEnv, baseUrl: config.baseUrl };
  switch (provider) {
    case 'deepseek':
      return {
        ...base,
        client: llm.createDeepSeekModel({
          apiKeyEnv,
          models,
          ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
        }),
      };
    case 'openai':
      return {
        ...base,
        client: llm.createOpenAICompatibleModel({
          baseUrl: config.baseUrl ?? 'https://api.openai.com/v1',
          apiKeyEnv,
          models,
          provider: 'openai',
        }),
      };
    case 'openai-compatible': {
      if (!config.baseUrl) {
        throw new UsageError({
          message:
            'openai-compatible models need an endpoint: pass --base-url <url> (the URL /chat/completions is appended to) or set "baseUrl" in the configuration',
        });
      }
      const client = llm.createOpenAICompatibleModel({
        baseUrl: config.baseUrl,
        apiKeyEnv,
        allowNoApiKey: true,
        models,
        provider: 'openai-compatible',
      });
      return { ...base, client };
    }
    case 'anthropic': {
      // The client appends /v1/messages; a base ending in /v1 would post to /v1/v1/messages and
      // get a bare 404 that does not say why.
      if (config.baseUrl && /\/v1\/*$/.test(config.baseUrl)) {
        throw new UsageError({
          message: `anthropic base URL ${config.baseUrl} ends with /v1, but /v1/messages is appended to it: pass --base-url ${config.baseUrl.replace(/\/v1\/*$/, '')} (the URL /v1/messages is appended to)`,
        });
      }
      const client = llm.createAnthropicModel({
        apiKeyEnv,
        models,
        ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
      });
      return { ...base, client };
    }
    default:
      throw new UsageError({
        message: `unknown provider "${provider}" in --model ${config.model}; use deepseek, openai, openai-compatible or anthropic`,
      });
  }
}
