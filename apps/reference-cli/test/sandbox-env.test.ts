// End to end through the real CLI: the key variable named by --api-key-env, credential-like
// variables and shell startup files never reach a bash command or a hook, whatever shell.env says.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const MARKER = 'STARTUP-FILE-MARKER';

describe('the environment of commands and hooks', { timeout: 180_000 }, () => {
  it('passes neither the --api-key-env variable nor credentials, and reads no startup file', async () => {
    if (!existsSync('/usr/bin/bwrap'))
      throw new Error('bubblewrap is required: apt-get install bubblewrap');
    const command = 'env; echo END-OF-ENV';
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command }) }] },
        { text: 'done' },
      ],
    });
    servers.push(server);
    const { env, root } = isolatedEnv({
      SPINE_E2E_LOGIN: 'canary-api-key',
      AWS_ACCESS_KEY_ID: 'canary-aws',
      OPENAI_KEY: 'canary-openai',
      GH_PAT: 'canary-gh',
      DATABASE_URL: 'postgres://u:canary-db@h/x',
      PLAIN_SETTING: 'visible-under-inherit-all',
    });
    delete env.SHLVL;
    for (const file of ['.bashrc', '.profile', '.bash_profile'])
      writeFileSync(join(root, file), `echo ${MARKER}-${file}\n`);
    env.BASH_ENV = join(root, '.bashrc');
    const cwd = exampleWorkspace('spine-env-');
    mkdirSync(join(root, 'config'), { recursive: true });
    // The most permissive configuration a person could write: it still cannot pass the key.
    writeFileSync(
      join(root, 'config', 'config.json'),
      JSON.stringify({
        shell: {
          env: { inherit: 'all', include: ['SPINE_E2E_LOGIN'], set: { SPINE_E2E_LOGIN: 'x' } },
        },
        // Hooks run in the sandbox too: they can write only inside the workspace.
        hooks: { 'pre-tool-use': ['env > hook-env.txt'] },
      }),
    );
    const result = await runCli(
      ['run', ...modelArgs(server.baseUrl), '--api-key-env', 'SPINE_E2E_LOGIN', '--cwd', cwd, '--approval', 'never-ask', '--json', 'show env'],
      { env },
    ); // biome-ignore format: argv
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const output = events.find((event) => event.type === 'tool/result')?.body.content as string;
    expect(output).toContain('END-OF-ENV');
    expect(output).toContain('PLAIN_SETTING=visible-under-inherit-all');
    expect(output).not.toContain('canary');
    expect(output).not.toMatch(/^SPINE_E2E_LOGIN=/m);
    expect(output).not.toContain(MARKER);
    expect(result.stdout).not.toContain('canary');
    const hookEnv = readFileSync(join(cwd, 'hook-env.txt'), 'utf8');
    expect(hookEnv).toContain('PLAIN_SETTING=');
    expect(hookEnv).not.toContain('canary');
    expect(hookEnv).not.toMatch(/^(BASH_)?ENV=/m);
  });
});
