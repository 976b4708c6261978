import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { profileModelPlan, type SessionModelSettings } from './profile-models.js';

const PROVIDERS = ['deepseek', 'openai', 'openai-compatible', 'anthropic'];
const ENDPOINT = 'http://127.0.0.1:8080/v1';

/** Every session (provider × custom endpoint or not × custom key variable or not). */
function sessions(): SessionModelSettings[] {
  return PROVIDERS.flatMap((provider) =>
    [undefined, ENDPOINT].flatMap((baseUrl) =>
      [undefined, 'SESSION_KEY'].map((apiKeyEnv) => {
        const session: SessionModelSettings = { model: `${provider}/session-model` };
        if (baseUrl) session.baseUrl = baseUrl;
        if (apiKeyEnv) session.apiKeyEnv = apiKeyEnv;
        return session;
      }),
    ),
  );
}

describe('profileModelPlan', () => {
  it('gives the session endpoint and key only to the same provider, in every combination', () => {
    for (const session of sessions())
      for (const provider of PROVIDERS) {
        const plan = profileModelPlan(session, `${provider}/profile-model`);
        const same = session.model.startsWith(`${provider}/`);
        if (same) {
          // The same provider: the same endpoint and key as the session's model.
          expect(plan).toEqual({
            use: 'own',
            settings: { ...session, model: `${provider}/profile-model` },
          });
        } else if (session.baseUrl) {
          // Another provider's key never goes to the session's custom endpoint.
          expect(plan.use).toBe('session');
          if (plan.use === 'session')
            expect(plan.reason).toContain(`a ${provider} key is never sent there`);
        } else {
          // Another provider: its own default endpoint and key variable, nothing of the session's.
          expect(plan).toEqual({ use: 'own', settings: { model: `${provider}/profile-model` } });
        }
      }
  });

  it('never pairs a session endpoint or key variable with another provider (any names)', () => {
    const provider = fc.oneof(
      fc.constantFrom(...PROVIDERS),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
    );
    fc.assert(
      fc.property(
        provider,
        fc.option(fc.constant(ENDPOINT), { nil: undefined }),
        fc.option(fc.constant('SESSION_KEY'), { nil: undefined }),
        fc.oneof(
          provider.map((p) => `${p}/m`),
          fc.string(),
        ),
        (sessionProvider, baseUrl, apiKeyEnv, name) => {
          const session: SessionModelSettings = { model: `${sessionProvider}/s` };
          if (baseUrl) session.baseUrl = baseUrl;
          if (apiKeyEnv) session.apiKeyEnv = apiKeyEnv;
          const plan = profileModelPlan(session, name);
          if (plan.use === 'session') return;
          expect(plan.settings.model).toBe(name);
          if (plan.settings.baseUrl !== undefined || plan.settings.apiKeyEnv !== undefined)
            expect(name.startsWith(`${sessionProvider}/`)).toBe(true);
          if (baseUrl && !name.startsWith(`${sessionProvider}/`)) expect.unreachable();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a name without a provider', () => {
    expect(profileModelPlan({ model: 'deepseek/x' }, 'gpt')).toMatchObject({ use: 'session' });
    expect(profileModelPlan({ model: 'deepseek/x' }, '/gpt')).toMatchObject({ use: 'session' });
  });
});
