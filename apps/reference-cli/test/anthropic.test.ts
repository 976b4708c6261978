import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnthropicServer, createAnthropicServer } from './anthropic-server.js';
import { type CliResult, exampleWorkspace, isolatedEnv, runCli } from './run-cli.js';

const KEY = 'sk-ant-loopback-0123456789';
const MODEL = 'anthropic/claude-sonnet-4-5';
const TASK = 'Create notes/hello.txt with a greeting, then show me what it says.';
// Thinking text split across deltas mid-character, and a signature with every base64 symbol: both
// must come back in the next request exactly as they were streamed.
const THINKING = 'The user wants a file.\nWrite it — then cat it to check ✓ "quoted" \\ done';
const SIGNATURE = 'EqQBCkgIBxABGAIiQPz+/9k3Lw==Zm9vYmFy+/0123456789abcdefABCDEF==';
const FILE_CONTENT = 'Hello from "Anthropic" — ✓\n';

function sessionIds(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => name.slice(0, -'.jsonl'.length))
    : [];
}

function eventsOf(dir: string, id: string): { type: string; body: Record<string, unknown> }[] {
  return readFileSync(join(dir, `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

function anthropicArgs(server: AnthropicServer, cwd: string): string[] {
  return ['--model', MODEL, '--base-url', server.baseUrl, '--cwd', cwd, '--approval', 'never-ask'];
}

describe('spine run against an Anthropic Messages API server', { timeout: 180_000 }, () => {
  let server: AnthropicServer;
  let result: CliResult;
  let cwd: string;
  let env: NodeJS.ProcessEnv;
  let sessionDir: string;

  beforeAll(async () => {
    server = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        {
          thinking: { text: THINKING, signature: SIGNATURE },
          text: 'Writing the file.',
          toolUses: [
            {
              id: 'toolu_01WriteHello',
              name: 'write',
              input: { path: 'notes/hello.txt', content: FILE_CONTENT },
            },
          ],
        },
        {
          thinking: { text: 'Now check it.', signature: 'c2lnbmF0dXJlLTI=' },
          toolUses: [
            { id: 'toolu_02CatHello', name: 'bash', input: { command: 'cat notes/hello.txt' } },
          ],
        },
        { text: 'Done: notes/hello.txt greets you from Anthropic.' },
        // For `spine resume` below: a new turn on the history read back from the log.
        { text: 'It still says hello.' },
      ],
    });
    ({ env, sessionDir } = isolatedEnv({ ANTHROPIC_API_KEY: KEY }));
    cwd = exampleWorkspace('spine-anthropic-');
    mkdirSync(join(cwd, '.spine'));
    writeFileSync(
      join(cwd, '.spine', 'config.json'),
      JSON.stringify({ reasoning: { enabled: true } }),
    );
    result = await runCli(['run', ...anthropicArgs(server, cwd), TASK], { env });
  }, 180_000);

  afterAll(async () => {
    await server.close();
  });

  it('runs a two-step tool loop: tool_use, the real tool in the workspace, tool_result, final text', () => {
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(server.refused).toEqual([]);
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(request.headers['x-api-key']).toBe(KEY);
      expect(request.headers['anthropic-version']).toBe('2023-06-01');
      expect(request.body.model).toBe('claude-sonnet-4-5');
      expect(request.body.stream).toBe(true);
      expect(request.body.thinking).toMatchObject({ type: 'enabled' });
    }
    expect(readFileSync(join(cwd, 'notes', 'hello.txt'), 'utf8')).toBe(FILE_CONTENT);
    // The transcript: reasoning, text, each tool call and its result, the answer.
    expect(result.stdout).toContain('thinking: ');
    expect(result.stdout).toContain('Writing the file.');
    expect(result.stdout).toContain('Done: notes/hello.txt greets you from Anthropic.');
    expect(result.stderr).toContain('→ write');
    expect(result.stderr).toContain('✓ write Created notes/hello.txt');
    expect(result.stderr).toContain('→ bash');
    expect(result.stderr).toContain('✓ bash');
    // The key never reaches the log.
    const [id] = sessionIds(sessionDir);
    expect(readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')).not.toContain(KEY);
  });

  it('sends back the tool_use, its tool_result with the same id and the signed thinking byte for byte', () => {
    const messages = server.requests[1]?.body.messages;
    expect(messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    const assistant = messages[1].content;
    expect(assistant[0]).toEqual({ type: 'thinking', thinking: THINKING, signature: SIGNATURE });
    expect(assistant[1]).toMatchObject({ type: 'text', text: 'Writing the file.' });
    expect(assistant[2]).toMatchObject({
      type: 'tool_use',
      id: 'toolu_01WriteHello',
      name: 'write',
      input: { path: 'notes/hello.txt', content: FILE_CONTENT },
    });
    const toolResult = messages[2].content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01WriteHello' });
    expect(toolResult.content).toContain('Created notes/hello.txt');
    expect(toolResult.is_error).toBeUndefined();
    expect(server.requests[1]?.raw).toContain(`"signature":${JSON.stringify(SIGNATURE)}`);
    // The third request answers the bash call with what the real command printed.
    const third = server.requests[2]?.body.messages;
    const bashResult = third.at(-1).content.at(-1);
    expect(bashResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_02CatHello' });
    expect(bashResult.content).toContain('Hello from "Anthropic" — ✓');
    // The task is sent once, as the first user turn, in every request.
    for (const request of server.requests) {
      expect(request.raw.split(JSON.stringify(TASK)).length - 1).toBe(1);
    }
  });

  it('replays the session: every request hash verifies and --request N prints the wire body as sent', async () => {
    const [id] = sessionIds(sessionDir);
    const replayed = await runCli(['replay', id!, '--verify'], {
      env: { ...env, ANTHROPIC_API_KEY: '' },
    });
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('verified: all 3 requests');
    const second = await runCli(['replay', id!, '--request', '2'], { env });
    expect(second.code).toBe(0);
    const wire = JSON.parse(second.stdout);
    expect(wire.messages[1].content[0].signature).toBe(SIGNATURE);
    expect(wire.messages[2].content[0].tool_use_id).toBe('toolu_01WriteHello');
    expect(second.stdout.trim()).toBe(server.requests[1]?.raw);
  });

  it('resumes the session with a new task: the history read from the log carries the signed thinking unchanged', async () => {
    const [id] = sessionIds(sessionDir);
    const resumed = await runCli(
      ['resume', id!, '--base-url', server.baseUrl, '--cwd', cwd, 'Still there?'],
      { env },
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('It still says hello.');
    expect(server.refused).toEqual([]);
    const messages = server.requests[3]?.body.messages;
    expect(messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: THINKING,
      signature: SIGNATURE,
    });
    expect(messages.at(-1).content.at(-1)).toMatchObject({ type: 'text', text: 'Still there?' });
    // The resumed request starts with the last recorded request's messages, byte for byte (cache
    // breakpoints aside: they move to the new tail).
    const messagesText = (raw: string): string => {
      const body = raw.replaceAll(',"cache_control":{"type":"ephemeral"}', '');
      return body.slice(body.indexOf('"messages":['), body.indexOf('],"thinking":'));
    };
    const before = messagesText(server.requests[2]!.raw);
    expect(before.length).toBeGreaterThan(1000);
    expect(messagesText(server.requests[3]!.raw).startsWith(before)).toBe(true);
  });
});

describe('spine run against Anthropic: retries and keys', { timeout: 180_000 }, () => {
  const servers: AnthropicServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it('retries a 529 overloaded and a 429 with retry-after without duplicating the user message', async () => {
    const server = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        {
          error: {
            status: 529,
            type: 'overloaded_error',
            message: 'Overloaded',
            headers: { 'retry-after': '1' },
          },
        },
        {
          error: {
            status: 429,
            type: 'rate_limit_error',
            message: 'Number of request tokens has exceeded your per-minute rate limit',
            headers: { 'retry-after': '0' },
          },
        },
        { text: 'Third time lucky.' },
      ],
    });
    servers.push(server);
    const { env, sessionDir } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
    const cwd = exampleWorkspace('spine-anthropic-');
    const run = await runCli(['run', ...anthropicArgs(server, cwd), 'say something'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Third time lucky.');
    expect(run.stderr).toContain('retry: attempt 2 in 1000 ms');
    expect(run.stderr).toContain('retry: attempt 3 in 0 ms');
    expect(server.requests).toHaveLength(3);
    // Each attempt sends the same conversation: one user message, nothing appended by a failure.
    for (const request of server.requests) {
      const [message, ...rest] = request.body.messages;
      expect(rest).toEqual([]);
      expect(message.role).toBe('user');
      expect(message.content[0]).toEqual({ type: 'text', text: 'say something' });
      expect(request.raw.split('"say something"').length - 1).toBe(1);
      expect(request.raw).toBe(server.requests[0]?.raw);
    }
    const [id] = sessionIds(sessionDir);
    const events = eventsOf(sessionDir, id!);
    const typed = events.filter(
      (event) => event.type === 'user/message' && event.body.source === 'user',
    );
    expect(typed.map((event) => event.body.content)).toEqual(['say something']);
    expect(events.filter((event) => event.type === 'assistant/message')).toHaveLength(1);
    const replayed = await runCli(['replay', id!, '--verify'], { env });
    expect(replayed.code).toBe(0);
  });

  it('retries a stream that fails mid-message with an overloaded error event, keeping no partial answer', async () => {
    const server = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        {
          thinking: { text: 'half a thought', signature: 'SIG_LOST' },
          text: 'Partial answer that is lost',
          failAfterEvents: 8,
        },
        { text: 'Complete answer.' },
      ],
    });
    servers.push(server);
    const { env, sessionDir } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
    const cwd = exampleWorkspace('spine-anthropic-');
    const run = await runCli(['run', ...anthropicArgs(server, cwd), '--json', 'answer me'], {
      env,
    });
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.raw).toBe(server.requests[0]?.raw);
    const events = eventsOf(sessionDir, JSON.parse(run.stdout.split('\n')[0]!).body.sessionId);
    const answers = events.filter((event) => event.type === 'assistant/message');
    expect(answers.map((event) => event.body.content)).toEqual([
      [{ type: 'text', text: 'Complete answer.' }],
    ]);
    expect(JSON.stringify(events)).not.toContain('SIG_LOST');
  });

  it('stops before any request when ANTHROPIC_API_KEY is missing, naming the variable', async () => {
    const server = await createAnthropicServer({ apiKey: KEY, replies: [{ text: 'unused' }] });
    servers.push(server);
    const { env, sessionDir } = isolatedEnv();
    const cwd = exampleWorkspace('spine-anthropic-');
    const missing = await runCli(['run', ...anthropicArgs(server, cwd), 'task'], { env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('ANTHROPIC_API_KEY is not set');
    expect(missing.stdout).toBe('');
    const custom = await runCli(
      ['run', ...anthropicArgs(server, cwd), '--api-key-env', 'MY_CLAUDE_KEY', 'task'],
      { env },
    );
    expect(custom.code).toBe(3);
    expect(custom.stderr).toContain('MY_CLAUDE_KEY is not set');
    expect(server.requests).toHaveLength(0);
    expect(server.refused).toEqual([]);
    expect(sessionIds(sessionDir)).toEqual([]);
  });
});
