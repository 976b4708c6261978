import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatibleModel } from '@spine/llm';
import type { ToolResultBody } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import {
  createScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedReply,
} from '@spine/test-utils';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, type RequestHeaderBody, replay, SystemPrompt } from '../src/index.js';
import { wireMessages } from './harness.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const childScript = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Crashed {
  server: ScriptedModelServer;
  workspace: string;
  sessionDir: string;
  sessionId: string;
}

/** Runs the child until `killWhen` sees a line (and `ready` holds), then SIGKILLs it. */
async function runAndKill(
  replies: ScriptedReply[],
  input: string,
  killWhen: string,
  ready: (workspace: string) => boolean,
  store?: { fsync?: 'always' | 'per-turn' | 'never'; flushIntervalMs?: number },
): Promise<Crashed> {
  const server = await createScriptedModelServer({ replies });
  const workspace = mkdtempSync(join(tmpdir(), 'spine-crash-ws-'));
  const sessionDir = mkdtempSync(join(tmpdir(), 'spine-crash-sessions-'));
  cleanups.push(async () => {
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(sessionDir, { recursive: true, force: true });
  });
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      childScript,
      JSON.stringify({ baseUrl: server.baseUrl, sessionDir, workspace, input, store }),
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const deadline = Date.now() + 25_000;
  while (!(stdout.split('\n').includes(killWhen) && ready(workspace))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`child did not reach "${killWhen}": ${stdout} ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  await exited;
  const sessionId = /session (\S+)/.exec(stdout)?.[1];
  if (!sessionId) throw new Error(`no session id in ${stdout}`);
  return { server, workspace, sessionDir, sessionId };
}

async function reopen(crashed: Crashed) {
  const session = await Session.open({
    store: createJsonlStore({ dir: crashed.sessionDir, fsync: 'never' }),
    id: crashed.sessionId,
  });
  cleanups.push(() => session.close());
  const model = createOpenAICompatibleModel({
    baseUrl: crashed.server.baseUrl,
    apiKey: 'test-key',
    provider: 'deepseek',
  });
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: createToolRuntime({
      cwd: crashed.workspace,
      tools: createWorkspaceTools({ cwd: crashed.workspace }),
      approval: 'never-ask',
    }),
    systemPrompt: new SystemPrompt('You are a test agent.'),
  });
  return { session, agent, model };
}

describe('crash recovery (SIGKILL of a real child process)', () => {
  // The default policy groups appends for 20 ms; here the group window outlasts the test, so
  // only the write-ahead of `tool/started` (written before the tool runs) and of
  // `request/context` (before the request is sent) can put the call and the request on disk.
  const policies = [
    ['every append synced', { fsync: 'always' as const }],
    [
      'the default policy, groups never written by their timer',
      { fsync: 'per-turn' as const, flushIntervalMs: 600_000 },
    ],
  ] as const;
  it.each(policies)(
    'resumes after a kill during a tool: the call is answered "outcome unknown" and the turn continues (%s)',
    async (_name, store) => {
      const crashed = await runAndKill(
        [
          {
            toolCalls: [
              {
                id: 'sh1',
                name: 'bash',
                arguments: JSON.stringify({
                  command: 'echo started > marker.txt && sleep 2 && echo finished >> marker.txt',
                }),
              },
            ],
          },
          { text: 'I verified the marker file.' },
        ],
        'Create the marker.',
        'tool-call',
        (workspace) => existsSync(join(workspace, 'marker.txt')),
        store,
      );
      const { session, agent, model } = await reopen(crashed);
      expect(agent.interruptedTurn).toBe(1);
      const recovered = session
        .events()
        .filter((event) => event.type === 'tool/result')
        .map((event) => event.body as ToolResultBody);
      expect(recovered).toEqual([
        expect.objectContaining({ toolCallId: 'sh1', outcome: 'unknown', isError: true }),
      ]);
      expect(session.events().some((event) => event.type === 'session/recovered')).toBe(true);

      const result = await agent.resume();
      expect(result).toMatchObject({
        reason: 'completed',
        turn: 1,
        text: 'I verified the marker file.',
      });
      const wire = wireMessages(crashed.server.requests[1]!);
      expect(wire.find((message) => message.role === 'tool')?.content).toMatch(/outcome unknown/);
      expect(wire.filter((message) => message.content === 'Create the marker.')).toHaveLength(1);
      const headers = session
        .events()
        .filter((event) => event.type === 'request/header')
        .map((event) => event.body as RequestHeaderBody);
      expect(headers.map((header) => [header.turn, header.step, header.attempt])).toEqual([
        [1, 1, 1],
        [1, 2, 1],
      ]);
      expect(session.events().filter((event) => event.type === 'turn/end')).toHaveLength(1);
      const report = replay(session, { model });
      expect(report.ok).toBe(true);
      expect(report.requests).toHaveLength(2);
    },
  );

  it.each(policies)(
    'retries a step that died mid-stream as a new attempt of the same step (%s)',
    async (_name, store) => {
      const crashed = await runAndKill(
        [
          { stallAfterChunks: 2, text: 'a partial answer that stalls forever' },
          { text: 'complete answer' },
        ],
        'Answer me.',
        'delta',
        () => true,
        store,
      );
      const { session, agent, model } = await reopen(crashed);
      const result = await agent.resume();
      expect(result).toMatchObject({
        reason: 'completed',
        turn: 1,
        steps: 1,
        text: 'complete answer',
      });
      const types = session.events().map((event) => event.type);
      expect(types.filter((type) => type === 'step/start')).toHaveLength(1);
      const started = session
        .events()
        .filter((event) => event.type === 'llm/retry-started')
        .map((event) => event.body);
      expect(started).toEqual([{ attempt: 2, afterCrash: true }]);
      const attempts = session
        .events()
        .filter((event) => event.type === 'assistant/attempt')
        .map((event) => (event.body as { outcome: string }).outcome);
      expect(attempts).toEqual(['interrupted', 'ok']);
      const headers = session
        .events()
        .filter((event) => event.type === 'request/header')
        .map((event) => event.body as RequestHeaderBody);
      expect(headers.map((header) => [header.step, header.attempt])).toEqual([
        [1, 1],
        [1, 2],
      ]);
      expect(headers[1]?.requestHash).toBe(headers[0]?.requestHash);
      expect(
        wireMessages(crashed.server.requests[1]!).filter(
          (message) => message.role === 'user' && message.content === 'Answer me.',
        ),
      ).toHaveLength(1);
      expect(replay(session, { model }).ok).toBe(true);
    },
  );
});
