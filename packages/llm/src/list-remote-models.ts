import type { ModelError } from '@spine/protocol';
import { type Dispatcher, request } from 'undici';
import { classifyError } from './classify-error.js';

/** Options of {@link listRemoteModels}. */
export interface ListRemoteModelsOptions {
  /** Provider name for errors (default `openai-compatible`); `anthropic` switches to its API. */
  provider?: string;
  /** An undici dispatcher. */
  dispatcher?: Dispatcher;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/**
 * Lists the model ids an OpenAI-compatible endpoint serves (`GET {baseUrl}/models`; with
 * `provider: 'anthropic'`, `GET {baseUrl}/v1/models` with Anthropic's headers), so a configured
 * id can be checked at startup (DeepSeek renames models between snapshots).
 *
 * @throws a {@link ModelError} classified like any model request failure (AUTH_FAILED,
 *   NETWORK_ERROR, …).
 * @example
 * ```ts
 * const ids = await listRemoteModels('https://api.deepseek.com', process.env.DEEPSEEK_API_KEY);
 * if (!ids.includes('deepseek-v4-flash')) console.warn('model not served');
 * ```
 */
export async function listRemoteModels(
  baseUrl: string,
  apiKey: string | undefined,
  options: ListRemoteModelsOptions = {},
): Promise<string[]> {
  const provider = options.provider ?? 'openai-compatible';
  const anthropic = provider === 'anthropic';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey && anthropic) {
    headers['x-api-key'] = apiKey;
    headers['anthropic-version'] = '2023-06-01';
  } else if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  // Anthropic's base URL has no /v1; OpenAI-compatible bases include their version segment.
  const path = anthropic ? '/v1/models' : '/models';
  let response: Dispatcher.ResponseData;
  let text: string;
  try {
    response = await request(`${baseUrl.replace(/\/+$/, '')}${path}`, {
      method: 'GET',
      headers,
      dispatcher: options.dispatcher,
      signal: options.signal,
    });
    text = await response.body.text();
  } catch (error) {
    throw classifyError(error, { provider, phase: 'connect' });
  }
  if (response.statusCode >= 400) {
    throw classifyError(
      {
        status: response.statusCode,
        body: text,
        headers: response.headers as Record<string, string>,
      },
      { provider },
    );
  }
  try {
    const json = JSON.parse(text) as { data?: { id?: unknown }[] };
    return (json.data ?? [])
      .map((entry) => entry.id)
      .filter((id): id is string => typeof id === 'string');
  } catch {
    throw classifyError(
      { status: 502, body: `GET /models returned non-JSON: ${text.slice(0, 200)}` },
      { provider },
    );
  }
}
