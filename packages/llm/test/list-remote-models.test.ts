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
});
