import type { ModelClient, ModelError } from '@spine/protocol';
import {
  createOpenAICompatibleModel,
  type OpenAICompatibleModelOptions,
} from './model-openai-compatible.js';

/** Options of {@link createDeepSeekModel}: those of the OpenAI-compatible client, all optional. */
export type DeepSeekModelOptions = Partial<Omit<OpenAICompatibleModelOptions, 'provider'>>;

/**
 * A `ModelClient` for DeepSeek (`https://api.deepseek.com`, key from `DEEPSEEK_API_KEY`).
 * Follows a safe `reasoning_content` policy for DeepSeek: reasoning is resent
 * on every assistant message that carries tool calls, dropped elsewhere, and never sent when
 * the request turns thinking off. Model ids (`deepseek-v4-flash`, …) are configuration.
 *
 * @throws a {@link ModelError} from `stream()` (AUTH_FAILED names DEEPSEEK_API_KEY when the key is
 *   missing).
 * @example
 * ```ts
 * const model = createDeepSeekModel();
 * for await (const event of model.stream({ model: 'deepseek-v4-flash', system: 'Be terse.', messages, tools: [] })) {
 *   if (event.type === 'text-delta') process.stdout.write(event.text);
 * }
 * ```
 */
export function createDeepSeekModel(options: DeepSeekModelOptions = {}): ModelClient {
  return createOpenAICompatibleModel({
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    ...options,
    baseUrl: options.baseUrl ?? 'https://api.deepseek.com',
    provider: 'deepseek',
  });
}
