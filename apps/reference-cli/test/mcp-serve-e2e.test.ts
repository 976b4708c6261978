import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { serveWorkspace } from './mcp-serve-helpers.js';
import { BIN, isolatedEnv, modelArgs, runCli } from './run-cli.js';

// Spine's own MCP client using `spine mcp serve` as a configured server: the outer agent (a
// scripted loopback model) calls the served `read` through MCP, in the outer session's sandbox;
// both sessions, the agent's and the server's, are recorded and verify.

type Event = { type: string; body: Record<string, unknown> };

function logOf(dir: string): { id: string; events: Event[] } {
  const file = readdirSync(dir).find((name) => name.endsWith('.jsonl'));
  if (!file) throw new Error(`no session in ${dir}`);
  const events = readFileSync(join(dir, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
  return { id: file.replace(/\.jsonl$/, ''), events };
}

describe('spine as the MCP client of spine mcp serve', { timeout: 420_000 }, () => {
  it('reads a file through the served tool; both sessions record the call and verify', async () => {
    const model = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'mcp__spine__read', arguments: '{"path":"notes.txt"}' },
          ],
        },
        { text: 'The notes list alpha, beta and gamma.' },
      ],
    });
    try {
      const cwd = serveWorkspace();
      const servedSessions = join(cwd, '.served-sessions');
      writeFileSync(
        join(cwd, '.mcp.json'),
        JSON.stringify({
          mcpServers: {
            spine: {
              command: process.execPath,
              args: [BIN, 'mcp', 'serve', '--tools', 'read,grep', '--cwd', cwd],
              // The server runs in the outer session's sandbox: its own log lives in the workspace.
              env: {
                SPINE_FROM_SOURCE: '1',
                SPINE_SESSION_DIR: servedSessions,
                SPINE_CONFIG_HOME: join(cwd, '.served-config'),
              },
              startTimeoutMs: 300_000,
              trust: true,
            },
          },
        }),
      );
      const { env, sessionDir } = isolatedEnv();
      const ran = await runCli(
        ['run', ...modelArgs(model.baseUrl), '--cwd', cwd, '--json', 'what do the notes say?'],
        { env, timeoutMs: 380_000 },
      );
      expect(ran.code, ran.stderr).toBe(0);
      const outer = logOf(sessionDir);
      const result = outer.events.find((event) => event.type === 'tool/result');
      expect(result?.body).toMatchObject({ toolName: 'mcp__spine__read', isError: false });
      expect(String(result?.body.content)).toContain('1\talpha');
      // The read-only hint of a trusted server counts: the call ran without asking anyone.
      const approval = outer.events.find((event) => event.type === 'tool/approval');
      expect(approval?.body).toMatchObject({ decision: 'allow' });

      const served = logOf(servedSessions);
      const servedResult = served.events.find((event) => event.type === 'tool/result');
      expect(servedResult?.body).toMatchObject({ toolName: 'read', isError: false });
      expect(servedResult?.body.content).toBe(result?.body.content);

      expect((await runCli(['replay', outer.id, '--verify'], { env })).code).toBe(0);
      const servedEnv = { ...env, SPINE_SESSION_DIR: servedSessions };
      const verified = await runCli(['verify', served.id], { env: servedEnv });
      expect(verified.code, verified.stdout).toBe(0);
    } finally {
      await model.close();
    }
  });
});
