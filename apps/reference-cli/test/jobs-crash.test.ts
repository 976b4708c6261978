import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { processesWith } from './jobs-helpers.js';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

type Event = { seq: number; type: string; body: Record<string, unknown> };
const background = (id: string, command: string) => ({
  toolCalls: [
    { id, name: 'bash', arguments: JSON.stringify({ command, run_in_background: true }) },
  ],
});

/** Runs `spine run` until the server got `requests` requests, then SIGKILLs it; returns the session id. */
async function runThenKill(
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    server: { requests: readonly unknown[] };
    requests: number;
    sessionDir: string;
  },
): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const deadline = Date.now() + 60_000;
  const onDisk = (): boolean => {
    const id = /"sessionId":"([^"]+)"/.exec(output)?.[1];
    if (!id) return false;
    try {
      return readFileSync(join(options.sessionDir, `${id}.jsonl`), 'utf8').includes('"job/start"');
    } catch {
      return false;
    }
  };
  // Killed once the job's start is on disk and the model is answering the next request.
  while ((options.server.requests.length < options.requests || !onDisk()) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('close', resolve));
  return JSON.parse(output.split('\n')[0] as string).body.sessionId as string;
}

function eventsOf(sessionDir: string, id: string): Event[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
}

describe('background jobs after SIGKILL of the CLI', () => {
  it('resume reports a sandboxed job as gone (outcome unknown) and an unsandboxed one as still running', async () => {
    const sandboxed = `${Math.floor(Math.random() * 1e5) + 7000}.125`;
    const loose = `${Math.floor(Math.random() * 1e5) + 7000}.625`;
    const server = await createScriptedModelServer({
      replies: [
        background('b_1', `sleep ${sandboxed}`),
        { stallAfterChunks: 3, text: 'Waiting on the job for a long while…' },
        { text: 'Checked the jobs.' },
      ],
    });
    const looseServer = await createScriptedModelServer({
      replies: [
        background('b_9', `sleep ${loose}`),
        { stallAfterChunks: 3, text: 'Waiting on the job for a long while…' },
        { text: 'Checked the jobs.' },
      ],
    });
    const workspace = exampleWorkspace('spine-jobs-crash-');
    const { env, sessionDir } = isolatedEnv();
    let stray: number[] = [];
    try {
      const id = await runThenKill(
        [
          ...modelArgs(server.baseUrl),
          '--cwd',
          workspace,
          '--json',
          '--approval',
          'never-ask',
          'go',
        ],
        { env, server, requests: 2, sessionDir },
      );
      // The sandboxed job died with its parent (bwrap --die-with-parent).
      for (let i = 0; i < 40 && processesWith(sandboxed).length > 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(processesWith(sandboxed)).toEqual([]);
      const resumed = await runCli(
        ['resume', id, ...modelArgs(server.baseUrl), '--cwd', workspace, '--json'],
        {
          env,
        },
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      const events = eventsOf(sessionDir, id);
      const recovered = events.filter((e) => e.type === 'job/recovered').map((e) => e.body);
      expect(recovered).toMatchObject([
        { id: 'job-1', state: 'gone', command: `sleep ${sandboxed}` },
      ]);
      const note = events.find(
        (e) => e.type === 'user/message' && String(e.body.content).includes('background job job-1'),
      );
      expect(String(note?.body.content)).toContain('outcome unknown');
      // The note reached the model in the resumed step's request.
      expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('outcome unknown');
      const verified = await runCli(['replay', id, '--verify'], { env });
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);

      // Without the sandbox the job outlives the CLI: the same pid and start time still run.
      const looseId = await runThenKill(
        [
          ...modelArgs(looseServer.baseUrl),
          '--cwd',
          workspace,
          '--json',
          '--approval',
          'never-ask',
          '--sandbox',
          'danger-full-access',
          'go',
        ],
        { env, server: looseServer, requests: 2, sessionDir },
      );
      stray = processesWith(loose);
      expect(stray.length).toBeGreaterThan(0);
      const again = await runCli(
        ['resume', looseId, ...modelArgs(looseServer.baseUrl), '--cwd', workspace, '--json'],
        { env },
      );
      expect(again.code, again.stderr).toBe(0);
      const looseEvents = eventsOf(sessionDir, looseId);
      const started = looseEvents.find((e) => e.type === 'job/start')?.body;
      expect(looseEvents.filter((e) => e.type === 'job/recovered').map((e) => e.body)).toEqual([
        {
          id: 'job-1',
          command: `sleep ${loose}`,
          pid: started?.pid,
          startTime: started?.startTime,
          state: 'running',
        },
      ]);
    } finally {
      for (const pid of [...stray, ...processesWith(loose)])
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      await server.close();
      await looseServer.close();
    }
  }, 240_000);
});
