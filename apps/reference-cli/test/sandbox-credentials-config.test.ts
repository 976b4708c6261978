// End to end through the real CLI and real bubblewrap: a sandboxed command does not see the
// person's credentials (~/.ssh, ~/.aws, shell history …) unless the USER configuration says
// `shell.allowCredentials`; a project file saying it is refused with exit 2. HOME is a folder
// inside the workspace, so the sandbox's private /tmp does not hide it on its own; so is
// SPINE_CONFIG_HOME, whose MCP OAuth tokens are hidden as well.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const SECRET = 'CANARY-PRIVATE-KEY';

/** A workspace whose HOME (inside it) holds credentials; `userConfig` is the user's config file. */
function setUp(userConfig: object, projectConfig?: object) {
  const { env } = isolatedEnv();
  const cwd = exampleWorkspace('spine-credentials-cli-');
  const home = join(cwd, 'home');
  env.HOME = home;
  // Spine's configuration home moved out of ~/.config: its MCP OAuth tokens are hidden there too.
  const configDir = join(cwd, 'spine-config');
  env.SPINE_CONFIG_HOME = configDir;
  mkdirSync(join(configDir, 'mcp-oauth'), { recursive: true });
  writeFileSync(join(configDir, 'mcp-oauth', 'server.json'), `${SECRET} oauth\n`);
  for (const dir of ['.ssh', '.aws']) mkdirSync(join(home, dir), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), `${SECRET} ssh\n`);
  writeFileSync(join(home, '.aws', 'credentials'), `${SECRET} aws\n`);
  writeFileSync(join(home, '.bash_history'), `${SECRET} history\n`);
  writeFileSync(join(configDir, 'config.json'), JSON.stringify(userConfig));
  if (projectConfig) {
    mkdirSync(join(cwd, '.spine'), { recursive: true });
    writeFileSync(join(cwd, '.spine', 'config.json'), JSON.stringify(projectConfig));
  }
  return { env, cwd, home, configDir };
}

async function runReading(userConfig: object): Promise<string> {
  const { env, cwd, home, configDir } = setUp(userConfig);
  const command = `cat ${home}/.ssh/id_rsa ${home}/.aws/credentials ${home}/.bash_history ${configDir}/mcp-oauth/server.json; echo END`;
  const server = await createScriptedModelServer({
    replies: [
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command }) }] },
      { text: 'done' },
    ],
  });
  servers.push(server);
  const result = await runCli(
    ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, '--approval', 'never-ask', '--json', 'read'],
    { env },
  ); // biome-ignore format: argv
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const events = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const output = events.find((event) => event.type === 'tool/result')?.body.content as string;
  expect(output).toContain('END');
  return output;
}

describe('credential locations and shell.allowCredentials', { timeout: 120_000 }, () => {
  it('hides them from sandboxed commands by default', async () => {
    if (!existsSync('/usr/bin/bwrap'))
      throw new Error('bubblewrap is required: apt-get install bubblewrap');
    expect(await runReading({})).not.toContain(SECRET);
  });

  it('shows them when the user configuration sets shell.allowCredentials', async () => {
    const output = await runReading({ shell: { allowCredentials: true } });
    for (const what of ['ssh', 'aws', 'history', 'oauth'])
      expect(output).toContain(`${SECRET} ${what}`);
  });

  it('refuses shell.allowCredentials in a project file (top level or profile) with exit 2', async () => {
    for (const project of [
      { shell: { allowCredentials: true } },
      { shell: { allowCredentials: false } },
      { profile: 'p', profiles: { p: { shell: { allowCredentials: true } } } },
    ]) {
      const { env, cwd } = setUp({}, project);
      const result = await runCli(
        ['run', ...modelArgs('http://127.0.0.1:9/v1'), '--cwd', cwd, '--approval', 'never-ask', 'hi'],
        { env },
      ); // biome-ignore format: argv
      expect(result.code, JSON.stringify(project)).toBe(2);
      expect(result.stderr).toMatch(/shell\.allowCredentials/);
      expect(result.stderr).toMatch(/only in the user configuration/);
      expect(result.stdout).toBe('');
    }
  });
});
