import { listRemoteModels } from './list-remote-models.js';
import { DEFAULT_KEY_VARIABLES } from './model-from-name.js';

/**
 * The endpoint each built-in provider is reached at when no base URL is configured.
 * `openai-compatible` has none: its endpoint is always configuration.
 */
export const DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  deepseek: 'https://api.deepseek.com',
  openai: 'https://api.openai.com/v1',
  // Without /v1: the Anthropic client and listRemoteModels append /v1/… themselves.
  anthropic: 'https://api.anthropic.com',
};

/** Options of {@link checkProvider}. */
export interface ProviderCheckOptions {
  /** The provider: `deepseek`, `openai`, `openai-compatible`, `anthropic` or another name. */
  provider: string;
  /** The variable the key is read from (default {@link DEFAULT_KEY_VARIABLES}). */
  apiKeyEnv?: string;
  /** The endpoint (default {@link DEFAULT_BASE_URLS}). */
  baseUrl?: string;
  /** Where the key variable is looked up (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Cancels the reachability request (pass a timeout). */
  signal?: AbortSignal;
}

/** What {@link checkProvider} found. Never holds the key itself. */
export interface ProviderCheckResult {
  /** The variable the key is read from, when the provider has one. */
  keyVariable: string | undefined;
  /** Whether that variable is set (non-empty). */
  keySet: boolean;
  /** False for `openai-compatible`, where local servers need no key. */
  keyRequired: boolean;
  /** The endpoint checked, when one is known. */
  baseUrl: string | undefined;
  /**
   * The answer of the models endpoint (`GET {baseUrl}/models`), or why it failed (a classified
   * `ModelError`: AUTH_FAILED, NETWORK_ERROR …). Absent when not tried: no endpoint is known, or a
   * required key is missing.
   */
  reachability?: { ok: true; models: string[] } | { ok: false; error: Error };
}

/**
 * Checks that a provider can be used: its key variable is set, and its models endpoint answers
 * (with the key). For a harness's health check; nothing is thrown for a failure, it is reported.
 *
 * @example
 * ```ts
 * const check = await checkProvider({ provider: 'deepseek', signal: AbortSignal.timeout(8000) });
 * if (!check.keySet) console.log(`set ${check.keyVariable}`);
 * ```
 */
export async function checkProvider(options: ProviderCheckOptions): Promise<ProviderCheckResult> {
  const { provider } = options;
  const env = options.env ?? process.env;
  const keyVariable = options.apiKeyEnv ?? DEFAULT_KEY_VARIABLES[provider];
  const key = keyVariable ? env[keyVariable] || undefined : undefined;
  const keyRequired = provider !== 'openai-compatible';
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URLS[provider];
  const result: ProviderCheckResult = {
    keyVariable,
    keySet: key !== undefined,
    keyRequired,
    baseUrl,
  };
  if (!baseUrl || (keyRequired && !key)) return result;
  try {
    const models = await listRemoteModels(baseUrl, key, {
      provider,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    result.reachability = { ok: true, models };
  } catch (error) {
    result.reachability = { ok: false, error: error as Error };
  }
  return result;
}
