import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentSession } from '@spine/harness';
import { createMcpManager, type McpManager } from '@spine/mcp';
import { styleFor } from '@spine/tui';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcpSlash } from './slash.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

describe('/mcp and MCP prompts as slash commands', () => {
  let manager: McpManager;
  let active: AgentSession;
  const lines: string[] = [];
  const context = {
    print: (text: string) => void lines.push(text),
    style: styleFor(process.stdout),
  };
  beforeAll(async () => {
    manager = createMcpManager({
      servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      cwd: process.cwd(),
    });
    await manager.tools();
    // Only the part of a session these commands read.
    active = { mcp: { manager, close: () => manager.close() } } as unknown as AgentSession;
  });
  afterAll(() => manager.close());

  it('/mcp shows each server with its state, transport and tool count', async () => {
    lines.length = 0;
    expect(await runMcpSlash('/mcp', '', active, context)).toEqual({ kind: 'done' });
    expect(lines[0]).toMatch(/everything\s+.*ready.*\(stdio\) · \d+ tools/);
  }, 60_000);

  it('runs a server prompt as the next turn input, with arguments', async () => {
    const simple = await runMcpSlash('/mcp__everything__simple-prompt', '', active, context);
    expect(simple).toMatchObject({ kind: 'send', text: expect.stringContaining('simple prompt') });
    lines.length = 0;
    expect(await runMcpSlash('/mcp__everything__args-prompt', '', active, context)).toEqual({
      kind: 'done',
    });
    expect(lines.join('\n')).toContain('needs city=');
    const withArgs = await runMcpSlash(
      '/mcp__everything__args-prompt',
      'city=Paris',
      active,
      context,
    );
    expect(withArgs).toMatchObject({ kind: 'send', text: expect.stringContaining('Paris') });
    lines.length = 0;
    expect(await runMcpSlash('/mcp__everything__nope', '', active, context)).toEqual({
      kind: 'done',
    });
    expect(lines.join('\n')).toContain('no MCP prompt');
  }, 60_000);
});

describe('/mcp with a hostile server', () => {
  const hostile = fileURLToPath(
    new URL('../../../../packages/mcp/test/servers/hostile.mjs', import.meta.url),
  );
  const managers: McpManager[] = [];
  afterAll(() => Promise.all(managers.map((manager) => manager.close())));

  it('prints its tool names, skipped-tool warnings and start error made visible', async () => {
    const spec = join(tmpdir(), `spine-slash-hostile-${process.pid}.json`);
    writeFileSync(
      spec,
      JSON.stringify({ names: ['\u001b]0;owned\u0007', 'a\u202eb'], stderr: '\u001b[2J\u202e' }),
    );
    const manager = createMcpManager({
      servers: {
        good: { command: process.execPath, args: [hostile], env: { HOSTILE_SPEC: spec } },
        broken: {
          command: process.execPath,
          args: [hostile],
          env: { HOSTILE_SPEC: spec, FAIL_AT_START: '1' },
        },
      },
      cwd: process.cwd(),
    });
    managers.push(manager);
    await manager.tools();
    const lines: string[] = [];
    const active = { mcp: { manager, close: () => manager.close() } } as unknown as AgentSession;
    await runMcpSlash('/mcp', '', active, {
      print: (text) => void lines.push(text),
      style: styleFor(process.stdout),
    });
    // Only the front end's own colours may carry an escape.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour sequences is the point.
    const shown = lines.join('\n').replace(/\u001b\[[0-9;]*m/g, '');
    expect(shown).toContain('\\x1b]0;owned\\x07 skipped');
    expect(shown).toMatch(/broken .*failed/);
    expect(shown).not.toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/,
    );
  }, 60_000);
});
