import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE_REPLIES, EXAMPLE_TASK } from '../scripts/example-task.js';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe('spine run', { timeout: 180_000 }, () => {
  it('runs a multi-step coding task that edits files and runs the tests, streaming events as NDJSON', async () => {
    const server = await createScriptedModelServer({ replies: EXAMPLE_REPLIES, promptCache: true });
    servers.push(server);
    const { env, sessionDir } = isolatedEnv();
    const cwd = exampleWorkspace('spine-run-');
    const result = await runCli(
      [
        'run',
        ...modelArgs(server.baseUrl),
        '--cwd',
        cwd,
        '--approval',
        'never-ask',
        '--json',
        EXAMPLE_TASK,
      ],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readFileSync(join(cwd, 'src', 'add.js'), 'utf8')).toContain('return a + b;');
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0].type).toBe('session/header');
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const results = events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.body);
    expect(results.map((body) => body.toolName)).toEqual(['bash', 'read', 'edit', 'bash']);
    expect(results[3].content).toContain('all 3 passed');
    expect(events.at(-1).type).toBe('turn/end');
    // The NDJSON stream is exactly the stored log without the chain value each stored line ends
    // with (`"h"`, the tamper-evident hash over the previous line), and the key never appears in it.
    const id = events[0].body.sessionId;
    const stored = readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n');
    const chained = /,"h":"[0-9a-f]{32}"\}$/;
    expect(stored.every((line) => chained.test(line))).toBe(true);
    expect(stored.map((line) => line.replace(chained, '}'))).toEqual(
      result.stdout.trim().split('\n'),
    );
    const replayed = await runCli(['replay', id, '--verify'], { env });
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('verified: all 5 requests');
  });

  it('keeps API keys out of the log and prints a human transcript without --json', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'Hello there.' }] });
    servers.push(server);
    const { env, sessionDir } = isolatedEnv({ SECRET_KEY_VAR: 'sk-very-secret-123' });
    const cwd = exampleWorkspace('spine-run-');
    const result = await runCli(
      [
        'run',
        ...modelArgs(server.baseUrl),
        '--api-key-env',
        'SECRET_KEY_VAR',
        '--cwd',
        cwd,
        'say hi',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Hello there.');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-very-secret-123');
    const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'))!;
    expect(readFileSync(join(sessionDir, file), 'utf8')).not.toContain('sk-very-secret-123');
  });

  it('exits 3 on a model failure, 4 on a denied tool and 6 at the step limit', async () => {
    const failing = await createScriptedModelServer({
      replies: [{ error: { status: 401, body: '{"error":{"message":"bad key"}}' } }],
    });
    servers.push(failing);
    const { env } = isolatedEnv();
    const cwd = exampleWorkspace('spine-run-');
    const model = await runCli(['run', ...modelArgs(failing.baseUrl), '--cwd', cwd, 'task'], {
      env,
    });
    expect(model.code).toBe(3);

    const denying = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ name: 'bash', arguments: '{"command":"touch x"}' }] },
        { text: 'could not' },
      ],
    });
    servers.push(denying);
    const denied = await runCli(
      ['run', ...modelArgs(denying.baseUrl), '--cwd', cwd, '--approval', 'deny-all', 'task'],
      { env },
    );
    expect(denied.code).toBe(4);

    const looping = await createScriptedModelServer({
      replies: () => ({ toolCalls: [{ name: 'read', arguments: '{"path":"test.js"}' }] }),
    });
    servers.push(looping);
    const limited = await runCli(
      ['run', ...modelArgs(looping.baseUrl), '--cwd', cwd, '--max-steps', '2', 'task'],
      { env },
    );
    expect(limited.code).toBe(6);
  });

  it('prices a model from the configuration model table, sends the configured reasoning effort and lists the cost', async () => {
    const server = await createScriptedModelServer({
      replies: [{ text: 'Priced.', usage: { promptTokens: 1000, completionTokens: 500 } }],
    });
    servers.push(server);
    const { env } = isolatedEnv();
    const cwd = exampleWorkspace('spine-run-');
    mkdirSync(join(cwd, '.spine'));
    const models = [
      {
        provider: 'openai-compatible',
        id: 'my-model',
        contextWindow: 32_000,
        maxOutputTokens: 4096,
        price: { input: 1, cachedInput: 0.1, output: 2 },
      },
    ];
    writeFileSync(
      join(cwd, '.spine', 'config.json'),
      JSON.stringify({ models, reasoning: { effort: 'low' } }),
    );
    const run = await runCli(
      [
        'run',
        '--model',
        'openai-compatible/my-model',
        '--base-url',
        server.baseUrl,
        '--cwd',
        cwd,
        'price it',
      ],
      { env },
    );
    expect(run.code).toBe(0);
    expect(server.requests[0]?.body.reasoning_effort).toBe('low');
    const listed = await runCli(['sessions', '--json'], { env });
    // 1000 input tokens at $1/M plus 500 output tokens at $2/M.
    expect(JSON.parse(listed.stdout.trim()).costUsd).toBeCloseTo(0.002, 6);
  });

  it('resumes a session with a new task', async () => {
    const server = await createScriptedModelServer({
      replies: [{ text: 'first' }, { text: 'second' }],
    });
    servers.push(server);
    const { env } = isolatedEnv();
    const cwd = exampleWorkspace('spine-run-');
    const first = await runCli(
      ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, '--json', 'one'],
      { env },
    );
    const id = JSON.parse(first.stdout.split('\n')[0]!).body.sessionId;
    // No --model: the session keeps the model it was recorded with (openai-compatible here).
    const second = await runCli(['resume', id, '--base-url', server.baseUrl, '--cwd', cwd, 'two'], {
      env,
    });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('second');
    // The second request carries the first turn: the history was resumed.
    const messages = server.requests[1]?.body.messages as { role: string; content: string }[];
    expect(
      messages.some((message) => message.role === 'assistant' && message.content === 'first'),
    ).toBe(true);
    const missing = await runCli(['resume', 'no-such-session', ...modelArgs(server.baseUrl), 'x'], {
      env,
    });
    expect(missing.code).toBe(2);
    // The unknown id is named before a missing key.
    const { env: keyless } = isolatedEnv();
    const unknown = await runCli(['resume', 'no-such-session', 'x'], { env: keyless });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No session "no-such-session"');
    // Without a task, with every turn closed: nothing was done, so not a success (no request).
    const idle = await runCli(['resume', id, '--base-url', server.baseUrl, '--cwd', cwd], { env });
    expect(idle.code).toBe(2);
    expect(idle.stderr).toContain(`nothing to resume`);
    expect(idle.stderr).toContain(`spine resume ${id} "…"`);
    expect(server.requests).toHaveLength(2);
  });

  it('refuses bad usage with exit 2 and a message saying what to do', async () => {
    const { env } = isolatedEnv();
    const noBase = await runCli(['run', '--model', 'openai-compatible/x', 'task'], { env });
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toContain('--base-url');
    const ftp = await runCli(
      ['run', '--model', 'openai-compatible/x', '--base-url', 'ftp://127.0.0.1:9', 'task'],
      { env },
    );
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain('http(s) URL');
    const badModel = await runCli(['run', '--model', 'nonsense', 'task'], { env });
    expect(badModel.code).toBe(2);
    const unknownOption = await runCli(['run', '--bogus', 'task'], { env });
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--bogus'");
    const noCwd = await runCli(['run', '--cwd', '/no/such/dir', 'task'], { env });
    expect(noCwd.code).toBe(2);
    expect(noCwd.stderr).toContain('is not a directory');
    const noKey = await runCli(['run', 'task'], { env });
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toContain('DEEPSEEK_API_KEY is not set');
    const badSandbox = await runCli(['run', '--sandbox', 'none', 'task'], { env });
    expect(badSandbox.code).toBe(2);
    expect(badSandbox.stderr).toContain('--sandbox');
  });
});
