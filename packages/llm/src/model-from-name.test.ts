import type { ModelRequest } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelConfigError } from './errors.js';
import { createModelFromName, DEFAULT_KEY_VARIABLES, parseModelName } from './model-from-name.js';
import { createModelTable } from './model-table.js';
import { createScriptedModelServer } from './testing/scripted-model-server.js';

const REQUEST: ModelRequest = {
  model: 'qwen3',
  system: 'be brief',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
};

async function text(stream: AsyncIterable<{ type: string; text?: string }>): Promise<string> {
  let out = '';
  for await (const event of stream) if (event.type === 'text-delta') out += event.text ?? '';
  return out;
}

describe('createModelFromName', () => {
  it('builds each provider on its wire: openai-compatible and anthropic against a loopback server', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'one' }, { text: 'two' }] });
    try {
      const compatible = createModelFromName({
        model: 'openai-compatible/qwen3',
        baseUrl: server.baseUrl,
      });
      expect(compatible).toMatchObject({
        provider: 'openai-compatible',
        modelId: 'qwen3',
        contextWindow: 128_000,
        apiKeyEnv: 'OPENAI_API_KEY',
        baseUrl: server.baseUrl,
      });
      expect(await text(compatible.client.stream(REQUEST))).toBe('one');
      const anthropic = createModelFromName({
        model: 'anthropic/claude-sonnet-4-5',
        baseUrl: server.baseUrl,
        apiKeyEnv: 'SPINE_TEST_KEY_SET',
      });
      process.env.SPINE_TEST_KEY_SET = 'k';
      expect(await text(anthropic.client.stream({ ...REQUEST, model: 'claude-sonnet-4-5' }))).toBe(
        'two',
      );
      expect(server.requests.map((request) => request.path)).toEqual([
        '/chat/completions',
        '/v1/messages',
      ]);
    } finally {
      delete process.env.SPINE_TEST_KEY_SET;
      await server.close();
    }
  });

  it('takes the window from the option, then the table, then 128k', () => {
    const models = createModelTable([
      { provider: 'deepseek', id: 'small', contextWindow: 1000, maxOutputTokens: 100 },
    ]);
    expect(createModelFromName({ model: 'deepseek/small', models }).contextWindow).toBe(1000);
    expect(
      createModelFromName({ model: 'deepseek/small', models, contextWindow: 5 }).contextWindow,
    ).toBe(5);
    expect(createModelFromName({ model: 'deepseek/unknown-x', models }).contextWindow).toBe(
      128_000,
    );
    expect(createModelFromName({ model: 'openai/gpt' }).apiKeyEnv).toBe(
      DEFAULT_KEY_VARIABLES.openai,
    );
  });

  it('refuses what cannot work with a ModelConfigError that says what to do', () => {
    const refused = (model: string, baseUrl?: string) => {
      try {
        createModelFromName({ model, ...(baseUrl ? { baseUrl } : {}) });
      } catch (error) {
        expect(error).toBeInstanceOf(ModelConfigError);
        return (error as ModelConfigError).message;
      }
      throw new Error(`${model} was accepted`);
    };
    expect(refused('deepseek')).toContain('expected provider/model');
    expect(refused('nope/model')).toContain('unknown provider "nope"');
    expect(refused('openai-compatible/qwen3')).toContain('need an endpoint');
    expect(refused('anthropic/claude', 'http://127.0.0.1:1/v1')).toContain(
      "{ baseUrl: 'http://127.0.0.1:1' }",
    );
  });

  it('splits any name at its first slash or refuses it', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        const slash = name.indexOf('/');
        if (slash <= 0 || slash === name.length - 1) {
          expect(() => parseModelName(name)).toThrow(ModelConfigError);
        } else {
          const { provider, modelId } = parseModelName(name);
          expect(`${provider}/${modelId}`).toBe(name);
          expect(provider).not.toContain('/');
        }
      }),
    );
  });
});
