import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

/**
 * Starts `spine run` with `args`, waits until the server has received `requests` requests (at most
 * 30 s) plus 300 ms, sends `signal`, and returns the exit code and everything printed to stdout.
 */
async function runThenSignal(
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    server: { requests: readonly unknown[] };
    requests: number;
    signal: NodeJS.Signals;
  },
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const deadline = Date.now() + 30_000;
  while (options.server.requests.length < options.requests && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill(options.signal);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

describe('spine resume after a crash', () => {
  it('continues the interrupted turn of a killed run and finishes it', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'read', arguments: '{"path":"src/add.js"}' }] },
        { stallAfterChunks: 3, text: 'Thinking about the fix for a long while…' },
        { text: 'Resumed and done.' },
      ],
    });
    try {
      const cwd = exampleWorkspace('spine-crash-');
      const { env, sessionDir } = isolatedEnv();
      const model = modelArgs(server.baseUrl);
      // Kill it hard while the second request is stalled mid-stream.
      const { output } = await runThenSignal(
        [...model, '--cwd', cwd, '--json', '--approval', 'never-ask', 'fix it'],
        { env, server, requests: 2, signal: 'SIGKILL' },
      );
      const id = JSON.parse(output.split('\n')[0]!).body.sessionId as string;

      const resumed = await runCli(['resume', id, ...model, '--cwd', cwd, '--json'], { env });
      expect(resumed.code).toBe(0);
      const appended = resumed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(appended.some((event) => event.type === 'assistant/message')).toBe(true);
      expect(appended.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });
      const log = readFileSync(
        join(sessionDir, readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'))!),
        'utf8',
      );
      expect(log).toContain('Resumed and done.');
      const verified = await runCli(['replay', id, '--verify'], { env });
      expect(verified.code).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('stops cleanly on SIGTERM: exit 130 and the turn is closed as aborted in the log', async () => {
    const server = await createScriptedModelServer({
      replies: [{ stallAfterChunks: 3, text: 'Working on it for a long time…' }],
    });
    try {
      const { env } = isolatedEnv();
      const model = modelArgs(server.baseUrl);
      const { code, output } = await runThenSignal(
        [...model, '--cwd', tempFolder('spine-term-'), '--json', 'work'],
        { env, server, requests: 1, signal: 'SIGTERM' },
      );
      expect(code).toBe(130);
      const events = output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'aborted' } });
    } finally {
      await server.close();
    }
  }, 60_000);
});
