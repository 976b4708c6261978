import { existsSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type AnthropicServer, createAnthropicServer, MODELS } from './anthropic-server.js';
import { exampleWorkspace, isolatedEnv, runCli } from './run-cli.js';

const KEY = 'sk-ant-loopback-0123456789';
const MODEL = 'anthropic/claude-sonnet-4-5';

describe('spine run with a misconfigured Anthropic key or endpoint', { timeout: 60_000 }, () => {
  const servers: AnthropicServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it('refuses a base URL ending in /v1 with exit 2 before any request, saying what to pass', async () => {
    const server = await createAnthropicServer({ apiKey: KEY, replies: [{ text: 'unused' }] });
    servers.push(server);
    const { env, sessionDir } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
    const cwd = exampleWorkspace('spine-anthropic-');
    const args = [
      'run',
      '--model',
      MODEL,
      '--cwd',
      cwd,
      '--base-url',
      `${server.baseUrl}/v1/`,
      'task',
    ];
    const refused = await runCli(args, { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `pass --base-url ${server.baseUrl} (the URL /v1/messages is appended to)`,
    );
    expect(server.requests).toHaveLength(0);
    expect(existsSync(sessionDir) ? readdirSync(sessionDir) : []).toEqual([]);
  });

  it('exits 3 naming the key variable when the server rejects the key', async () => {
    const server = await createAnthropicServer({ apiKey: KEY, replies: [{ text: 'unused' }] });
    servers.push(server);
    const { env } = isolatedEnv({ ANTHROPIC_API_KEY: 'sk-ant-wrong' });
    const cwd = exampleWorkspace('spine-anthropic-');
    const rejected = await runCli(
      ['run', '--model', MODEL, '--base-url', server.baseUrl, '--cwd', cwd, 'task'],
      { env },
    );
    expect(server.refused).toEqual(['x-api-key wrong']);
    expect(rejected.code).toBe(3);
    expect(rejected.stderr).toContain('ANTHROPIC_API_KEY');
  });
});

describe('spine doctor with an Anthropic model', { timeout: 60_000 }, () => {
  it('checks reachability of the Anthropic models endpoint with the key, and fails on a rejected key', async () => {
    const server = await createAnthropicServer({ apiKey: KEY, replies: [] });
    try {
      const args = ['doctor', '--json', '--model', MODEL, '--base-url', server.baseUrl];
      const good = await runCli(args, { env: isolatedEnv({ ANTHROPIC_API_KEY: KEY }).env });
      const checks = JSON.parse(good.stdout) as { name: string; status: string; detail: string }[];
      expect(checks.find((check) => check.name === 'anthropic key')?.status).toBe('ok');
      expect(checks.find((check) => check.name === 'reachability')).toMatchObject({
        status: 'ok',
        detail: `${server.baseUrl} answered with ${MODELS.length} models`,
      });
      const bad = await runCli(args, {
        env: isolatedEnv({ ANTHROPIC_API_KEY: 'sk-ant-wrong' }).env,
      });
      expect(bad.code).toBe(7);
      const failed = JSON.parse(bad.stdout).find(
        (check: { name: string }) => check.name === 'reachability',
      );
      expect(failed.status).toBe('fail');
      expect(server.refused).toEqual(['x-api-key wrong']);
    } finally {
      await server.close();
    }
  });
});
