// Public API of @spine/llm. Every export here is a semver promise.

export { isModelError } from '@spine/protocol';
export type { ClassifyErrorOptions, HttpFailure } from './classify-error.js';
export { classifyError, isContextOverflowMessage, retryAfterMs } from './classify-error.js';
export {
  ImageBlobError,
  ImagesUnsupportedError,
  MissingApiKeyError,
  ModelConfigError,
} from './errors.js';
export type { ListRemoteModelsOptions } from './list-remote-models.js';
export { listRemoteModels } from './list-remote-models.js';
export type { AnthropicModelOptions } from './model-anthropic.js';
export { createAnthropicModel } from './model-anthropic.js';
export type { DeepSeekModelOptions } from './model-deepseek.js';
export { createDeepSeekModel } from './model-deepseek.js';
export type { ModelFromNameOptions, NamedModel } from './model-from-name.js';
export {
  createModelFromName,
  DEFAULT_KEY_VARIABLES,
  parseModelName,
} from './model-from-name.js';
export type { OpenAICompatibleModelOptions } from './model-openai-compatible.js';
export { createOpenAICompatibleModel } from './model-openai-compatible.js';
export type { ModelInfo, ModelPrice, ModelTable } from './model-table.js';
export {
  computeCost,
  createModelTable,
  DEFAULT_MODELS,
  lookupModel,
  modelAcceptsImages,
} from './model-table.js';
export type { ProviderCheckOptions, ProviderCheckResult } from './provider-check.js';
export { checkProvider, DEFAULT_BASE_URLS } from './provider-check.js';
export type { RetryPolicyOptions } from './retry-policy.js';
export { createRetryPolicy } from './retry-policy.js';
export type { OpenAIDialect } from './types.js';
export { usageFromAnthropic, usageFromOpenAI } from './usage-map.js';
