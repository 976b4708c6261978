// An MCP server the client passes with `session/new` (the reference server-everything over stdio)
// is connected through @spine/mcp like a configured one: its tools reach the model, a call runs
// and is recorded as a tool result.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Fixture, fixture, type Peer } from './acp-harness.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

let fx: Fixture | undefined;
let peer: Peer | undefined;
afterEach(async () => {
  await peer?.close();
  await fx?.cleanup();
  peer = undefined;
  fx = undefined;
});

describe('MCP servers from the client', () => {
  it('connects a stdio server the client passes and records its tool call', async () => {
    fx = await fixture([
      {
        toolCalls: [
          { id: 'call_mcp', name: 'mcp__everything__echo', arguments: '{"message":"hi from acp"}' },
        ],
      },
      { text: 'Echoed.' },
    ]);
    peer = await connect(fx.config({ approval: 'never-ask' }));
    const init = await peer.agent.request('initialize', { protocolVersion: 1 });
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [
        { name: 'everything', command: process.execPath, args: [everything, 'stdio'], env: [] },
      ],
    });
    const response = await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Echo something' }],
    });
    expect(response.stopReason).toBe('end_turn');
    await peer.agent.request('session/close', { sessionId });
    const log = readFileSync(join(fx.sessionDir, `${sessionId}.jsonl`), 'utf8');
    expect(log).toContain('mcp__everything__echo');
    const result = log
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            body: { toolCallId?: string; content?: string; isError?: boolean };
          },
      )
      .find((event) => event.type === 'tool/result' && event.body.toolCallId === 'call_mcp');
    expect(result?.body.isError).toBe(false);
    expect(result?.body.content).toContain('hi from acp');
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);
});
