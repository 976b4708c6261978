import { createScriptedModelServer, startSseServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { checkProvider, DEFAULT_BASE_URLS } from '../src/index.js';

describe('checkProvider', () => {
  it('reports the key variable as set and lists the models the endpoint serves', async () => {
    const server = await createScriptedModelServer({ models: ['deepseek-v4-flash'] });
    try {
      const check = await checkProvider({
        provider: 'deepseek',
        baseUrl: server.baseUrl,
        env: { DEEPSEEK_API_KEY: 'sk-test' },
      });
      expect(check).toEqual({
        keyVariable: 'DEEPSEEK_API_KEY',
        keySet: true,
        keyRequired: true,
        baseUrl: server.baseUrl,
        reachability: { ok: true, models: ['deepseek-v4-flash'] },
      });
    } finally {
      await server.close();
    }
  });

  it('does not call the endpoint when a required key is missing or empty', async () => {
    let requests = 0;
    const server = await startSseServer((_request, response) => {
      requests++;
      response.writeHead(500);
      response.end();
    });
    try {
      for (const env of [{}, { ANTHROPIC_API_KEY: '' }]) {
        const check = await checkProvider({ provider: 'anthropic', baseUrl: server.baseUrl, env });
        expect(check).toEqual({
          keyVariable: 'ANTHROPIC_API_KEY',
          keySet: false,
          keyRequired: true,
          baseUrl: server.baseUrl,
        });
      }
      expect(requests).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('tries an openai-compatible endpoint without a key and reports a rejection as a classified error', async () => {
    const server = await startSseServer((request, response) => {
      expect(request.headers.authorization).toBeUndefined();
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"no key","type":"authentication_error"}}');
    });
    try {
      const check = await checkProvider({
        provider: 'openai-compatible',
        apiKeyEnv: 'LOCAL_KEY',
        baseUrl: server.baseUrl,
        env: {},
      });
      expect(check).toMatchObject({ keyVariable: 'LOCAL_KEY', keySet: false, keyRequired: false });
      expect(check.reachability).toMatchObject({ ok: false, error: { code: 'AUTH_FAILED' } });
    } finally {
      await server.close();
    }
  });

  it('knows the default endpoint of each built-in provider but none for openai-compatible', async () => {
    expect(Object.keys(DEFAULT_BASE_URLS).sort()).toEqual(['anthropic', 'deepseek', 'openai']);
    const check = await checkProvider({ provider: 'openai-compatible', env: {} });
    expect(check.baseUrl).toBeUndefined();
    expect(check.reachability).toBeUndefined();
  });
});
