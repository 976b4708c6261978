import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  createScriptedModelServer,
  type ReceivedRequest,
  type ScriptedReply,
} from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

// Plan mode end to end through the real `spine` binary: the parent and its subagent try every
// way to change the workspace (file tools, a shell command, an MCP tool) and each is refused and
// recorded; the session replays with --verify and reruns offline.
const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

type Event = { seq: number; type: string; body: Record<string, unknown> };

/** The conversation a request belongs to: `kid` for the subagent's, else the parent's. */
const markerOf = (request: ReceivedRequest): string =>
  JSON.stringify(request.body?.messages ?? []).includes('[[kid]]') ? 'kid' : 'parent';
const stepOf = (request: ReceivedRequest): number =>
  ((request.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'assistant')
    .length;
const callOf = (id: string, name: string, args: object) => ({
  id,
  name,
  arguments: JSON.stringify(args),
});
const writes = (prefix: string) => [
  callOf(`${prefix}_write`, 'write', { path: `${prefix}-made.txt`, content: 'x' }),
  callOf(`${prefix}_edit`, 'edit', {
    path: 'src/add.js',
    edits: [{ oldText: 'a - b', newText: 'a + b' }],
  }),
  callOf(`${prefix}_bash`, 'bash', { command: `touch ${prefix}-bashed.txt` }),
];
const SCRIPTS: Record<string, ScriptedReply[]> = {
  parent: [
    {
      toolCalls: [
        callOf('p_read', 'read', { path: 'src/add.js' }),
        ...writes('p'),
        callOf('p_mcp', 'mcp__everything__echo', { message: 'hi' }),
        callOf('p_task', 'task', {
          description: 'try to fix it',
          prompt: '[[kid]] fix the adder in src/add.js',
          profile: 'general',
        }),
      ],
    },
    { text: 'Plan:\n1. In src/add.js replace `a - b` with `a + b`.\n2. Run `node test.js`.' },
  ],
  kid: [{ toolCalls: writes('k') }, { text: 'I could not change anything: plan mode.' }],
};

describe('spine in plan mode', { timeout: 240_000 }, () => {
  it('refuses every change by the agent and its subagent, records why, replays and reruns', async () => {
    const server = await createScriptedModelServer({
      replies: (request) =>
        SCRIPTS[markerOf(request)]?.[stepOf(request)] ?? {
          error: { status: 400, body: '{"error":{"message":"unscripted"}}' },
        },
    });
    try {
      const { env, sessionDir } = isolatedEnv();
      const workspace = exampleWorkspace('spine-plan-');
      writeFileSync(
        join(workspace, '.mcp.json'),
        JSON.stringify({
          mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
        }),
      );
      const before = readFileSync(join(workspace, 'src', 'add.js'), 'utf8');
      const run = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          workspace,
          '--approval',
          'plan',
          '--json',
          'fix the adder',
        ],
        { env, timeoutMs: 180_000 },
      );
      // Refused calls end the run like any denial (exit 4); the plan is the answer.
      expect(run.code).toBe(4);
      const events = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Event);
      const sessionId = events[0]?.body.sessionId as string;
      expect(events.find((e) => e.type === 'plan/mode')?.body).toEqual({
        mode: 'plan',
        approval: 'plan',
        by: 'config',
      });
      // The system prompt says so.
      const system = (
        (server.requests[0]?.body?.messages ?? []) as { role: string; content: string }[]
      )[0];
      expect(system?.content).toContain('Plan mode is on.');

      const approvals = new Map(
        events
          .filter((e) => e.type === 'tool/approval')
          .map((e) => [e.body.toolCallId as string, e.body]),
      );
      expect(approvals.get('p_read')).toMatchObject({ decision: 'allow', by: 'policy:plan' });
      for (const id of ['p_write', 'p_edit', 'p_bash', 'p_mcp'])
        expect(approvals.get(id), id).toMatchObject({
          decision: 'deny',
          by: 'policy:plan',
          reason: expect.stringMatching(/plan mode refuses/),
        });
      expect(approvals.get('p_task')).toMatchObject({ decision: 'allow' });

      // The subagent ran under the parent's plan mode: every change refused in its own log.
      const start = events.find((e) => e.type === 'agent/child/start');
      const childId = start?.body.sessionId as string;
      const child = readFileSync(join(sessionDir, `${childId}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Event);
      const childApprovals = new Map(
        child
          .filter((e) => e.type === 'tool/approval')
          .map((e) => [e.body.toolCallId as string, e.body]),
      );
      for (const id of ['k_write', 'k_edit', 'k_bash'])
        expect(childApprovals.get(id), id).toMatchObject({ decision: 'deny', by: 'policy:plan' });
      const childResults = child.filter((e) => e.type === 'tool/result').map((e) => e.body);
      expect(childResults.map((r) => r.outcome)).toEqual(['denied', 'denied', 'denied']);
      // A child is given no MCP tools at all, so none can reach the MCP server.
      const childTools = child
        .filter((e) => e.type === 'tools/defined')
        .flatMap((e) => (e.body.tools as { name: string }[]).map((tool) => tool.name));
      expect(childTools).toContain('bash');
      expect(childTools.filter((name) => name.startsWith('mcp__'))).toEqual([]);

      // Nothing changed on disk.
      for (const name of ['p-made.txt', 'p-bashed.txt', 'k-made.txt', 'k-bashed.txt'])
        expect(existsSync(join(workspace, name)), name).toBe(false);
      expect(readFileSync(join(workspace, 'src', 'add.js'), 'utf8')).toBe(before);

      const replay = await runCli(['replay', sessionId, '--verify'], { env, cwd: workspace });
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      const requests = server.requests.length;
      const rerun = await runCli(['rerun', sessionId, '--cwd', workspace], {
        env,
        cwd: workspace,
        timeoutMs: 180_000,
      });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(rerun.stdout).toMatch(/tool results identical: 6\/6/);
      expect(server.requests.length).toBe(requests);
    } finally {
      await server.close();
    }
  });
});
