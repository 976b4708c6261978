// Which endpoint and key a profile's model may use. A credential goes only to the endpoint it
// belongs to: the session's `baseUrl` and `apiKeyEnv` belong to the session's provider, so a
// profile naming a model of another provider never gets them, and when the session's endpoint is
// a custom one the other provider's own key is never sent there either: such a profile runs on
// the session's model (with a warning). A profile file from the project (which whoever controls
// the repository writes) thus never redirects a key.

import type { SpineConfig } from '../config/schema.js';

/** The session's model settings a profile's model is planned from. */
export type SessionModelSettings = Pick<SpineConfig, 'model' | 'baseUrl' | 'apiKeyEnv'>;

/** What a profile's model runs on: its own settings, or the session's model with a reason. */
export type ProfileModelPlan =
  | { use: 'own'; settings: SessionModelSettings }
  | { use: 'session'; reason: string };

/** The provider part of `provider/model`, or undefined when the name has none. */
function providerOf(name: string): string | undefined {
  const slash = name.indexOf('/');
  return slash > 0 && slash < name.length - 1 ? name.slice(0, slash) : undefined;
}

/**
 * Plans the settings of a profile's `model` against the session's: the same provider keeps the
 * session's endpoint and key variable; another provider gets its own defaults (neither the
 * session's `baseUrl` nor its `apiKeyEnv`), unless the session's endpoint is a custom `baseUrl`,
 * where that provider's key must not go: then the session's model is used.
 *
 * @example
 * ```ts
 * profileModelPlan({ model: 'openai-compatible/m', baseUrl: 'http://127.0.0.1:8080/v1' }, 'deepseek/deepseek-v4-pro');
 * // → { use: 'session', reason: '…' }
 * ```
 */
export function profileModelPlan(session: SessionModelSettings, name: string): ProfileModelPlan {
  const own = providerOf(name);
  const sessionProvider = providerOf(session.model);
  if (own === undefined)
    return { use: 'session', reason: `${JSON.stringify(name)} is not a "provider/model" name` };
  if (own === sessionProvider) {
    const settings: SessionModelSettings = { model: name };
    if (session.baseUrl !== undefined) settings.baseUrl = session.baseUrl;
    if (session.apiKeyEnv !== undefined) settings.apiKeyEnv = session.apiKeyEnv;
    return { use: 'own', settings };
  }
  if (session.baseUrl !== undefined)
    return {
      use: 'session',
      reason: `it is a ${own} model and the session's endpoint is the custom base URL of its ${sessionProvider} model; a ${own} key is never sent there`,
    };
  return { use: 'own', settings: { model: name } };
}
