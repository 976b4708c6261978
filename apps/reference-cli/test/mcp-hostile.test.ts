// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${ENV} references are configuration text, not template literals.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

// End to end through the real `spine` binary: a hostile MCP server from the project's .mcp.json
// (under bubblewrap) with control and bidi characters in its tool names and errors, and its
// configured secrets echoed on every stream. Nothing raw reaches the terminal; no secret is
// printed or stored.
const hostile = fileURLToPath(
  new URL('../../../packages/mcp/test/servers/hostile.mjs', import.meta.url),
);
const SECRET = 'S3cr3t-from-variable.*$';
const LITERAL = 'S3cr3t-literal-value';
const NAMES = ['\u001b]0;owned\u0007', 'evil\u202eexe.txt', '\u009b2J', 'zero\u200bwidth\u0000'];
/** Control and bidi characters a terminal acts on; line feeds are layout. */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/;

function workspace(extra: Record<string, unknown> = {}): string {
  const cwd = tempFolder('spine-mcp-hostile-');
  writeFileSync(join(cwd, 'spec.json'), JSON.stringify({ names: NAMES, error: NAMES.join(' ') }));
  const entry = {
    command: process.execPath,
    args: [hostile, NAMES[0]],
    env: {
      HOSTILE_SPEC: join(cwd, 'spec.json'),
      SECRET_TOKEN: '${HOSTILE_SECRET}',
      API_KEY: LITERAL,
    },
    ...extra,
  };
  writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { hostile: entry } }));
  return cwd;
}

function expectClean(text: string, where: string): void {
  expect(text, where).not.toMatch(UNSAFE);
  expect(text, where).not.toContain(SECRET);
  expect(text, where).not.toContain(LITERAL);
}

// Concurrent: the two halves share nothing, and each waits mostly on child processes.
describe.concurrent('spine with a hostile MCP server', () => {
  it('spine doctor and spine mcp list/get print nothing raw and no secret', async () => {
    const cwd = workspace();
    const { env } = isolatedEnv({ HOSTILE_SECRET: SECRET });
    const text = await runCli(['doctor', '--cwd', cwd], { env });
    expect(text.code).not.toBe(1);
    expect(text.stdout).toContain('\\x1b]0;owned\\x07');
    expect(text.stdout).toContain('skipped');
    expectClean(text.stdout + text.stderr, 'doctor');
    for (const args of [
      ['mcp', 'list'],
      ['mcp', 'get', 'hostile'],
    ]) {
      const shown = await runCli([...args, '--cwd', cwd], { env });
      expect(shown.code, args.join(' ')).toBe(0);
      expectClean(shown.stdout + shown.stderr, args.join(' '));
    }
  }, 60_000);

  it('a session warns about skipped tools made visible and keeps secrets out of output and log', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'mcp__hostile__leak', arguments: '{}' },
            { id: 'call_2', name: 'mcp__hostile__fail', arguments: '{}' },
          ],
        },
        { text: 'Done.' },
      ],
    });
    try {
      // Asks for danger-full-access from the project file: the read-only session is the ceiling.
      const cwd = workspace({ sandbox: 'danger-full-access' });
      const { env, sessionDir } = isolatedEnv({ HOSTILE_SECRET: SECRET });
      const ran = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--sandbox',
          'read-only',
          '--approval',
          'never-ask',
          '--json',
          'use the tools',
        ],
        { env },
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toContain('tool \\x1b]0;owned\\x07 skipped');
      expect(ran.stderr).toContain('tool \\x9b2J skipped');
      expect(ran.stderr).toMatch(/asks for sandbox danger-full-access; runs under read-only/);
      expectClean(ran.stdout + ran.stderr, 'run');
      const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'));
      const log = readFileSync(join(sessionDir, file ?? 'missing'), 'utf8');
      expect(log).toContain('[redacted]');
      expect(log).not.toContain(SECRET);
      expect(log).not.toContain(LITERAL);
      // The next model request carries the results: redacted there too.
      const sent = JSON.stringify(server.requests);
      expect(sent).toContain('[redacted]');
      expect(sent).not.toContain(LITERAL);
      expect(sent).not.toContain(JSON.stringify(SECRET).slice(1, -1));
    } finally {
      await server.close();
    }
  }, 60_000);
});
