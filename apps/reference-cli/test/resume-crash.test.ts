import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { APP_DIR, BIN, isolatedEnv, runCli } from './run-cli.js';

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
      const cwd = join(mkdtempSync(join(tmpdir(), 'spine-crash-')), 'workspace');
      cpSync(join(APP_DIR, 'examples', 'workspace'), cwd, { recursive: true });
      const { env, sessionDir } = isolatedEnv();
      const model = [
        '--model',
        'openai-compatible/deepseek-v4-flash',
        '--base-url',
        server.baseUrl,
      ];
      const child = spawn(
        process.execPath,
        [BIN, 'run', ...model, '--cwd', cwd, '--json', '--approval', 'never-ask', 'fix it'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      // Kill it hard while the second request is stalled mid-stream.
      const deadline = Date.now() + 30_000;
      while (server.requests.length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
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
      const model = [
        '--model',
        'openai-compatible/deepseek-v4-flash',
        '--base-url',
        server.baseUrl,
      ];
      const child = spawn(
        process.execPath,
        [
          BIN,
          'run',
          ...model,
          '--cwd',
          mkdtempSync(join(tmpdir(), 'spine-term-')),
          '--json',
          'work',
        ],
        {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      const deadline = Date.now() + 30_000;
      while (server.requests.length < 1 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill('SIGTERM');
      const code = await new Promise((resolve) => child.on('close', resolve));
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
