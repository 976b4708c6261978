import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
