import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OAuthEverything,
  startOAuthEverything,
} from '../../../packages/mcp/test/oauth-server.js';
import { BIN, isolatedEnv, runCli, tempFolder } from './run-cli.js';

// `spine doctor` against a loopback MCP server behind OAuth: the CLI prints the sign-in URL, this
// test plays the browser (follows it, then the redirect to the CLI's loopback callback), and the
// tokens land in the user's configuration folder, owner-only, never in the workspace.
describe('spine and an OAuth-protected MCP server', () => {
  let server: OAuthEverything;
  beforeAll(async () => {
    server = await startOAuthEverything();
  });
  afterAll(() => server.close());

  it('signs in through the printed URL once, stores the tokens under the config folder, reuses them', async () => {
    const { env, root } = isolatedEnv();
    const cwd = tempFolder('spine-mcp-oauth-cli-');
    writeFileSync(
      join(cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { secure: { type: 'http', url: `${server.origin}/mcp` } } }),
    );
    const args = [
      'doctor',
      '--cwd',
      cwd,
      '--json',
      '--model',
      'openai-compatible/x',
      '--base-url',
      'http://127.0.0.1:9',
    ];
    const child = spawn(process.execPath, [BIN, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const deadline = Date.now() + 60_000;
    while (!/open (\S+)/.test(stderr) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const url = /MCP server secure asks you to sign in: open (\S+)/.exec(stderr)?.[1];
    if (!url) throw new Error(`no sign-in URL; stderr: ${stderr}`);
    // The browser: the authorization server approves and redirects to the CLI's loopback callback.
    const approved = await fetch(url, { redirect: 'manual' });
    const callback = approved.headers.get('location');
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\/secure\?code=/);
    const landed = await fetch(callback ?? '');
    expect(await landed.text()).toContain('Signed in');
    await new Promise((resolve) => child.on('close', resolve));
    const checks = JSON.parse(stdout) as {
      area: string;
      name: string;
      status: string;
      detail: string;
    }[];
    expect(checks.find((check) => check.area === 'mcp' && check.name === 'secure')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^\d+ tools \(streamable-http\): .*echo/),
    });
    const tokenFile = join(root, 'config', 'mcp-oauth', 'secure.json');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(cwd)).toEqual(['.mcp.json']);
    // Again: the stored token is used, no sign-in.
    const again = await runCli(args, { env });
    expect(again.stderr).not.toContain('sign in');
    const second = JSON.parse(again.stdout) as { area: string; name: string; status: string }[];
    expect(second.find((check) => check.area === 'mcp' && check.name === 'secure')).toMatchObject({
      name: 'secure',
      status: 'ok',
    });
    expect(existsSync(tokenFile)).toBe(true);
  }, 120_000);
});
