// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${ENV} references are configuration text, not template literals.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempFolder } from './run-cli.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

describe('spine mcp, config --effective and doctor', () => {
  it('adds, lists, shows and removes servers across .mcp.json, the user file and ~/.claude.json', async () => {
    const { env, root } = isolatedEnv();
    const cwd = tempFolder('spine-mcp-cmd-');
    // Claude Code's user file: its mcpServers are read too.
    writeFileSync(
      join(root, '.claude.json'),
      JSON.stringify({
        mcpServers: { claude: { command: 'echo', env: { TOKEN: 'claude-secret' } } },
      }),
    );
    const add = await runCli(
      ['mcp', 'add', 'local', '--cwd', cwd, '--env', 'KEY=${MY_KEY}', '--', 'node', 'server.js'],
      { env },
    );
    expect(add.code).toBe(0);
    const remote = await runCli(
      [
        'mcp',
        'add',
        'remote',
        '--cwd',
        cwd,
        '--scope',
        'user',
        '--transport',
        'http',
        '--header',
        'Authorization: Bearer user-secret',
        'https://example.com/mcp',
      ],
      { env },
    );
    expect(remote.code).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { local: { command: 'node', args: ['server.js'], env: { KEY: '${MY_KEY}' } } },
    });
    const list = await runCli(['mcp', 'list', '--cwd', cwd, '--json'], { env });
    const rows = JSON.parse(list.stdout) as { name: string; description: string; origin: string }[];
    expect(rows.map((row) => row.name).sort()).toEqual(['claude', 'local', 'remote']);
    expect(rows.find((row) => row.name === 'claude')?.origin).toBe(join(root, '.claude.json'));
    const effective = await runCli(['config', '--effective', '--cwd', cwd], { env });
    expect(effective.stdout).toContain('mcp.servers.local.command = "node"');
    expect(effective.stdout).toMatch(/mcp\.servers\.remote\.headers\.Authorization = "\*\*\*"/);
    for (const output of [
      list.stdout,
      effective.stdout,
      (await runCli(['mcp', 'get', 'claude', '--cwd', cwd], { env })).stdout,
    ]) {
      expect(output).not.toContain('claude-secret');
      expect(output).not.toContain('user-secret');
    }
    const refused = await runCli(['mcp', 'remove', 'claude', '--cwd', cwd], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('remove it there');
    expect((await runCli(['mcp', 'remove', 'local', '--cwd', cwd], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, '.mcp.json'), 'utf8'))).toEqual({ mcpServers: {} });
  }, 120_000);

  it('field-by-field merge: the project overrides one field of a user-level server', async () => {
    const { env, root } = isolatedEnv();
    const cwd = tempFolder('spine-mcp-merge-');
    mkdirSync(join(root, 'config'), { recursive: true });
    writeFileSync(
      join(root, 'config', 'config.json'),
      JSON.stringify({ mcp: { servers: { s: { command: 'a', args: ['x'], trust: false } } } }),
    );
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { s: { command: 'b' } } }));
    const shown = await runCli(['mcp', 'get', 's', '--cwd', cwd, '--json'], { env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ command: 'b', args: ['x'], trust: false });
  }, 60_000);

  it('doctor starts each server under the sandbox and lists its tools; a broken one fails the check', async () => {
    const { env } = isolatedEnv();
    const cwd = tempFolder('spine-mcp-doctor-');
    writeFileSync(
      join(cwd, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [everything, 'stdio'] },
          broken: { command: '/nonexistent/server' },
        },
      }),
    );
    const doctor = await runCli(
      [
        'doctor',
        '--cwd',
        cwd,
        '--json',
        '--model',
        'openai-compatible/x',
        '--base-url',
        'http://127.0.0.1:9',
      ],
      { env },
    );
    const checks = JSON.parse(doctor.stdout) as {
      area: string;
      name: string;
      status: string;
      detail: string;
    }[];
    const mcp = checks.filter((check) => check.area === 'mcp');
    expect(mcp.find((check) => check.name === 'everything')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^\d+ tools \(stdio, sandboxed\): .*echo/),
    });
    expect(mcp.find((check) => check.name === 'broken')).toMatchObject({ status: 'fail' });
    expect(doctor.code).toBe(7);
  }, 120_000);
});
