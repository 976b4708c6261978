import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

// End to end through the real `spine` binary: MCP servers from the project's .mcp.json, run under
// the bubblewrap sandbox, a loopback model server scripting the tool calls.
const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const misbehaving = fileURLToPath(
  new URL('../../../packages/mcp/test/servers/misbehaving.mjs', import.meta.url),
);

type Event = { seq: number; type: string; body: Record<string, unknown> };

function events(sessionDir: string): Event[] {
  const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'));
  if (!file) throw new Error(`no session in ${sessionDir}`);
  return readFileSync(join(sessionDir, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
}

function sessionIdOf(log: readonly Event[]): string {
  const id = log[0]?.body.sessionId;
  if (typeof id !== 'string') throw new Error('no session header');
  return id;
}

function workspaceWith(servers: Record<string, unknown>): string {
  const cwd = tempFolder('spine-mcp-e2e-');
  writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
  writeFileSync(join(cwd, 'README.md'), '# workspace\n');
  return cwd;
}

describe('spine with MCP servers', () => {
  it('calls an MCP tool in a session that replays with --verify and reruns offline', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'mcp__everything__echo', arguments: '{"message":"hi from mcp"}' },
          ],
        },
        { text: 'The server echoed it.' },
      ],
    });
    try {
      const cwd = workspaceWith({
        everything: { command: process.execPath, args: [everything, 'stdio'] },
      });
      const { env, sessionDir } = isolatedEnv();
      const ran = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--approval',
          'never-ask',
          '--json',
          'echo something',
        ],
        { env },
      );
      expect(ran.stderr).not.toContain('MCP everything:');
      expect(ran.code).toBe(0);
      const log = events(sessionDir);
      const defined = log.find((event) => event.type === 'tools/defined');
      expect(JSON.stringify(defined?.body)).toContain('mcp__everything__echo');
      const result = log.find((event) => event.type === 'tool/result');
      expect(result?.body).toMatchObject({
        toolName: 'mcp__everything__echo',
        content: 'Echo: hi from mcp',
        isError: false,
        meta: { provider: 'mcp', server: 'everything', tool: 'echo' },
      });
      const id = sessionIdOf(log);
      const verified = await runCli(['replay', id, '--verify'], { env });
      expect(verified.code).toBe(0);
      // Offline rerun: the server's command now fails if anything starts it.
      writeFileSync(
        join(cwd, '.mcp.json'),
        JSON.stringify({ mcpServers: { everything: { command: '/nonexistent/mcp-server' } } }),
      );
      const rerun = await runCli(['rerun', id, '--cwd', cwd, '--json'], { env });
      expect(rerun.stderr).not.toContain('/nonexistent');
      expect(rerun.code).toBe(0);
      const summary = JSON.parse(rerun.stdout.trim().split('\n').at(-1) ?? '{}');
      expect(summary).toMatchObject({ ok: true, toolResults: { recorded: 1, rerun: 1, same: 1 } });
    } finally {
      await server.close();
    }
  }, 120_000);

  it('applies a list_changed at the next step: a new tools/defined, tools/changed and the prefix cause', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ id: 'call_add', name: 'mcp__bad__add-tool', arguments: '{}' }] },
        { toolCalls: [{ id: 'call_new', name: 'mcp__bad__added', arguments: '{}' }] },
        { text: 'Used the new tool.' },
      ],
    });
    try {
      const cwd = workspaceWith({ bad: { command: process.execPath, args: [misbehaving] } });
      const { env, sessionDir } = isolatedEnv();
      const ran = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--approval',
          'never-ask',
          '--json',
          'add a tool',
        ],
        { env },
      );
      expect(ran.code).toBe(0);
      const log = events(sessionDir);
      const changed = log.find((event) => event.type === 'tools/changed');
      expect(changed?.body).toEqual({
        cause: 'tools changed: server bad',
        sources: ['bad'],
        added: ['mcp__bad__added'],
        removed: [],
      });
      const defined = log.filter((event) => event.type === 'tools/defined');
      expect(defined).toHaveLength(2);
      expect(JSON.stringify(defined[1]?.body)).toContain('mcp__bad__added');
      const headers = log.filter((event) => event.type === 'request/header');
      const prefix = headers[1]?.body.prefix as { causes?: string[] } | undefined;
      expect(prefix?.causes).toContain('tools-changed');
      const results = log.filter((event) => event.type === 'tool/result');
      expect(results[1]?.body).toMatchObject({
        toolName: 'mcp__bad__added',
        content: 'I am new',
        isError: false,
      });
      expect((await runCli(['replay', sessionIdOf(log), '--verify'], { env })).code).toBe(0);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('answers a server sampling request with the session model and records it as sampling/answered', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            {
              id: 'call_sample',
              name: 'mcp__e__trigger-sampling-request',
              arguments: '{"prompt":"Say hi"}',
            },
          ],
        },
        { text: 'hi from the sampled model' },
        { text: 'The server got its answer.' },
      ],
    });
    try {
      const cwd = workspaceWith({
        e: { command: process.execPath, args: [everything, 'stdio'], sampling: true },
      });
      const { env, sessionDir } = isolatedEnv();
      const ran = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--approval',
          'never-ask',
          '--json',
          'sample',
        ],
        { env },
      );
      expect(ran.code).toBe(0);
      const log = events(sessionDir);
      const sampled = log.find((event) => event.type === 'sampling/answered');
      expect(sampled?.body).toMatchObject({ source: 'e', text: 'hi from the sampled model' });
      expect(JSON.stringify(sampled?.body.messages)).toContain('Say hi');
      const result = log.find((event) => event.type === 'tool/result');
      expect(result?.body).toMatchObject({
        toolName: 'mcp__e__trigger-sampling-request',
        isError: false,
      });
      expect(String(result?.body.content)).toContain('hi from the sampled model');
      expect((await runCli(['replay', sessionIdOf(log), '--verify'], { env })).code).toBe(0);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('answers an MCP call cut by SIGKILL with "outcome unknown" on resume', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ id: 'call_hang', name: 'mcp__bad__hang', arguments: '{}' }] },
        { text: 'I will verify before retrying.' },
      ],
    });
    try {
      const cwd = workspaceWith({ bad: { command: process.execPath, args: [misbehaving] } });
      const { env, sessionDir } = isolatedEnv();
      const child = spawn(
        process.execPath,
        [
          BIN,
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--approval',
          'never-ask',
          '--json',
          'hang',
        ],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      const deadline = Date.now() + 60_000;
      while (!output.includes('"tool/started"') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(output).toContain('"tool/started"');
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
      const id = sessionIdOf(events(sessionDir));
      const resumed = await runCli(
        [
          'resume',
          id,
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--approval',
          'never-ask',
          '--json',
        ],
        { env },
      );
      expect(resumed.code).toBe(0);
      const result = events(sessionDir).find((event) => event.type === 'tool/result');
      expect(result?.body).toMatchObject({
        toolName: 'mcp__bad__hang',
        outcome: 'unknown',
        isError: true,
      });
      expect(String(result?.body.content)).toMatch(/outcome unknown/i);
      expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
    } finally {
      await server.close();
    }
  }, 120_000);
});
