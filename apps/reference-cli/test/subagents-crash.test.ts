import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ReceivedRequest } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

/** The text of a request's first user message: a child's is its task prompt. */
const firstUserText = (request: ReceivedRequest): string => {
  const messages = (request.body?.messages ?? []) as { role: string; content?: unknown }[];
  const first = messages.find((message) => message.role === 'user')?.content;
  return typeof first === 'string' ? first : '';
};

/** The child's requests: its first user message is the task prompt (the parent's has the call). */
const isChild = (request: ReceivedRequest): boolean => firstUserText(request).includes('[[slow]]');

describe('spine resume after a crash mid-subagent', () => {
  it('closes the child, answers the task call "outcome unknown", resumes the parent and verifies the tree', async () => {
    const server = await createScriptedModelServer({
      replies: (request) => {
        if (isChild(request)) return { stallAfterChunks: 2, text: 'Looking through every file…' };
        const assistants = (request.body?.messages ?? []).filter(
          (m: { role: string }) => m.role === 'assistant',
        ).length;
        return assistants === 0
          ? {
              toolCalls: [
                {
                  id: 'call_1',
                  name: 'task',
                  arguments: JSON.stringify({
                    description: 'find add',
                    prompt: '[[slow]] where is add?',
                    profile: 'explore',
                  }),
                },
              ],
            }
          : { text: 'The subagent was cut off; I will look myself.' };
      },
    });
    try {
      const cwd = exampleWorkspace('spine-sub-crash-');
      const { env } = isolatedEnv();
      const model = modelArgs(server.baseUrl);
      const child = spawn(
        process.execPath,
        [BIN, 'run', ...model, '--cwd', cwd, '--json', '--approval', 'never-ask', 'find add'],
        {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      const deadline = Date.now() + 60_000;
      while (!server.requests.some(isChild)) {
        if (Date.now() > deadline)
          throw new Error(`the subagent never called the model:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
      const id = JSON.parse(output.split('\n')[0] as string).body.sessionId as string;

      const resumed = await runCli(['resume', id, ...model, '--cwd', cwd, '--json'], { env });
      expect(resumed.stderr).toContain('was running when the process stopped: outcome unknown');
      expect(resumed.code).toBe(0);
      const events = resumed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; body: Record<string, unknown> });
      expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });

      const shown = await runCli(['show', id, '--events', '--json'], { env });
      const log = shown.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; body: Record<string, unknown> });
      const result = log.find((e) => e.type === 'tool/result' && e.body.toolCallId === 'call_1');
      expect(result?.body).toMatchObject({ outcome: 'unknown', isError: true });
      expect(log.find((e) => e.type === 'agent/child/end')?.body).toMatchObject({
        toolCallId: 'call_1',
        reason: 'unknown',
      });
      expect(JSON.stringify(log)).toContain('The subagent was cut off; I will look myself.');

      const verified = await runCli(['replay', id, '--verify'], { env });
      expect(verified.stdout).toContain(
        'verified: 1 child session(s) replay and link to their parent',
      );
      expect(verified.code).toBe(0);
    } finally {
      await server.close();
    }
  }, 180_000);
  it("reports the files a child's interrupted command created, verified against the checkpoint", async () => {
    // The child's command creates a file, then waits; the parent is killed while it waits.
    const server = await createScriptedModelServer({
      replies: (request) => {
        const assistants = (request.body?.messages ?? []).filter(
          (m: { role: string }) => m.role === 'assistant',
        ).length;
        if (firstUserText(request).includes('[[write]]')) {
          return {
            toolCalls: [
              {
                id: 'child_bash',
                name: 'bash',
                arguments: JSON.stringify({ command: 'echo made > made-by-child.txt && sleep 60' }),
              },
            ],
          };
        }
        return assistants === 0
          ? {
              toolCalls: [
                {
                  id: 'call_1',
                  name: 'task',
                  arguments: JSON.stringify({
                    description: 'make a file',
                    prompt: '[[write]] create the file',
                    profile: 'general',
                  }),
                },
              ],
            }
          : { text: 'Noted what the subagent changed.' };
      },
    });
    try {
      const cwd = exampleWorkspace('spine-sub-crash-write-');
      const { env } = isolatedEnv();
      const model = modelArgs(server.baseUrl);
      const run = spawn(
        process.execPath,
        [BIN, 'run', ...model, '--cwd', cwd, '--json', '--approval', 'never-ask', 'make it'],
        { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      );
      let output = '';
      run.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      const deadline = Date.now() + 60_000;
      while (!existsSync(join(cwd, 'made-by-child.txt'))) {
        if (Date.now() > deadline) throw new Error(`the child's command never ran:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The whole process group: the CLI, the sandbox and the command it runs.
      process.kill(-(run.pid as number), 'SIGKILL');
      await new Promise((resolve) => run.on('close', resolve));
      const id = JSON.parse(output.split('\n')[0] as string).body.sessionId as string;

      const resumed = await runCli(['resume', id, ...model, '--cwd', cwd, '--json'], { env });
      expect(resumed.code).toBe(0);
      const shown = await runCli(['show', id, '--events', '--json'], { env });
      const log = shown.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; body: Record<string, unknown> });
      const result = log.find((e) => e.type === 'tool/result' && e.body.toolCallId === 'call_1');
      expect(result?.body).toMatchObject({ outcome: 'unknown', isError: true });
      expect(result?.body.content).toContain('files changed: made-by-child.txt');
      expect(result?.body.content).toContain('commands run: echo made > made-by-child.txt');
      expect(log.find((e) => e.type === 'agent/child/end')?.body).toMatchObject({
        toolCallId: 'call_1',
        files: ['made-by-child.txt'],
      });
    } finally {
      await server.close();
    }
  }, 120_000);
});
