import { createScriptedModelServer, startSseServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { listRemoteModels } from '../src/index.js';

describe('listRemoteModels', () => {
  it('returns the ids served by GET {base}/models', async () => {
    const server = await createScriptedModelServer({
      models: ['deepseek-v4-flash', 'deepseek-v4-pro'],
    });
    try {
      expect(await listRemoteModels(`${server.baseUrl}/`, 'sk')).toEqual([
        'deepseek-v4-flash',
        'deepseek-v4-pro',
      ]);
    } finally {
      await server.close();
    }
  });

  it('classifies a rejected key as AUTH_FAILED', async () => {
    const server = await startSseServer((request, response) => {
      expect(request.headers.authorization).toBe('Bearer bad');
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"Authentication Fails","type":"authentication_error"}}');
    });
    try {
      await expect(
        listRemoteModels(server.baseUrl, 'bad', { provider: 'deepseek' }),
      ).rejects.toMatchObject({
        code: 'AUTH_FAILED',
        provider: 'deepseek',
      });
    } finally {
      await server.close();
    }
  });

  it('uses Anthropic headers and /v1/models for provider anthropic', async () => {
    const server = await startSseServer((request, response) => {
      expect(request.url).toBe('/v1/models');
      expect(request.headers['x-api-key']).toBe('sk-ant');
      expect(request.headers['anthropic-version']).toBe('2023-06-01');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        '{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5"}],"has_more":false}',
      );
    });
    try {
      expect(await listRemoteModels(server.baseUrl, 'sk-ant', { provider: 'anthropic' })).toEqual([
        'claude-sonnet-4-5',
      ]);
    } finally {
      await server.close();
    }
  });
});
