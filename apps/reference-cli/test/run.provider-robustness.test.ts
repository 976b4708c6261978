// End-to-end runs of the real `spine` binary against loopback model servers that behave the way
// real ones sometimes do: empty or reused tool call ids, a request that can never fit, a tool
// result that fills the window. Each asserts the exit code, `turn/end` and `replay --verify`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const OVERFLOW: ScriptedReply = {
  error: {
    status: 400,
    body: JSON.stringify({
      error: {
        message:
          "This model's maximum context length is 8192 tokens. However, you requested 30000 tokens (25904 in the messages, 4096 in the completion).",
        type: 'invalid_request_error',
        code: 'invalid_request_error',
      },
    }),
  },
};

function readLog(sessionDir: string, id: string): SessionEvent[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SessionEvent);
}

/** Runs one task with `--json`, then `replay --verify`; returns the log and both results. */
async function runTask(
  replies: ScriptedReply[],
  task: string,
  options: { config?: object; prepare?: (cwd: string) => void } = {},
) {
  const server = await createScriptedModelServer({ replies });
  servers.push(server);
  const { env, root, sessionDir } = isolatedEnv();
  if (options.config) {
    mkdirSync(join(root, 'config'), { recursive: true });
    writeFileSync(join(root, 'config', 'config.json'), JSON.stringify(options.config));
  }
  const cwd = exampleWorkspace('spine-provider-');
  options.prepare?.(cwd);
  const run = await runCli(
    ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, '--approval', 'never-ask', '--json', task],
    { env },
  );
  const header = JSON.parse(run.stdout.split('\n')[0] ?? '{}') as SessionEvent;
  const id = (header.body as { sessionId: string }).sessionId;
  const events = readLog(sessionDir, id);
  const replayed = await runCli(['replay', id, '--verify'], { env });
  return { run, events, replayed, server };
}

function toolCalls(events: SessionEvent[]): Array<{ id: string; providerId?: string }> {
  return events
    .filter((event) => event.type === 'assistant/message')
    .flatMap(
      (event) =>
        (event.body as { content: Array<{ type: string; id: string; providerId?: string }> })
          .content,
    )
    .filter((part) => part.type === 'tool-call') as Array<{ id: string; providerId?: string }>;
}

const read = (id: string) => ({ id, name: 'read', arguments: '{"path":"src/add.js"}' });

describe('spine run against misbehaving providers', { timeout: 180_000 }, () => {
  it('completes when the server sends empty tool call ids in two responses in a row', async () => {
    const { run, events, replayed } = await runTask(
      [{ toolCalls: [read('')] }, { toolCalls: [read('')] }, { text: 'Read it twice.' }],
      'read src/add.js twice',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });
    const calls = toolCalls(events);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expect(calls.map((call) => call.providerId)).toEqual(['', '']);
    expect(replayed.code).toBe(0);
  });

  it('completes when the server reuses call_0 in every response', async () => {
    const { run, events, replayed } = await runTask(
      [{ toolCalls: [read('call_0')] }, { toolCalls: [read('call_0')] }, { text: 'Done.' }],
      'read src/add.js twice',
    );
    expect(run.code).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });
    const calls = toolCalls(events);
    expect(calls.map((call) => call.id)[0]).toBe('call_0');
    expect(calls[1]?.id).not.toBe('call_0');
    expect(calls[1]?.providerId).toBe('call_0');
    expect(replayed.code).toBe(0);
  });

  it('exits 3 with advice when the first request can never fit the window', async () => {
    const { run, events, replayed } = await runTask(
      [OVERFLOW],
      `Summarise this: ${'lorem ipsum '.repeat(8_000)}`,
      // 10k: the fixed part (system prompt and the tools, job_output and job_kill included) is
      // ~4.3k tokens, so in 8k minus the 4k answer reserve it alone would not fit, and this case
      // is about one message that can never fit.
      { config: { contextWindow: 10_240 } },
    );
    expect(run.code).toBe(3);
    const end = events.at(-1)!;
    expect(end.type).toBe('turn/end');
    expect(end.body).toMatchObject({ reason: 'error', error: { code: 'CONTEXT_OVERFLOW' } });
    expect((end.body as { error: { message: string } }).error.message).toMatch(
      /one message \(event #\d+\) takes about \d+ tokens/,
    );
    expect(run.stderr).toContain('bigger window');
    expect(run.stderr).toContain('/compact');
    expect(run.stderr).not.toContain('internal error');
    expect(replayed.code).toBe(0);
  });

  it('cuts a tool result that fills the window before sending it and finishes the task', async () => {
    const lines = Array.from({ length: 4_000 }, (_, i) => `line ${i} of a generated file`);
    const { run, events, replayed, server } = await runTask(
      [
        { toolCalls: [{ id: 'big', name: 'read', arguments: '{"path":"big.txt"}' }] },
        { text: 'It is a long file.' },
      ],
      'read big.txt',
      {
        config: { contextWindow: 10_240 },
        prepare: (cwd) => writeFileSync(join(cwd, 'big.txt'), lines.join('\n')),
      },
    );
    expect(run.code).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });
    const output = events.find((event) => event.type === 'tool/output');
    const result = events.find((event) => event.type === 'tool/result');
    expect(output).toBeDefined();
    expect(result?.body).toMatchObject({ meta: { truncated: true, originalSeq: output?.seq } });
    const sent = (
      server.requests[1]!.body as { messages: Array<{ role: string; content: string }> }
    ).messages.find((message) => message.role === 'tool');
    expect(sent?.content.length).toBeLessThan(((10_240 - 4_096) / 2) * 4);
    expect(replayed.code).toBe(0);
  });
});
