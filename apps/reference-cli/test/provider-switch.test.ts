import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnthropicRequest,
  type AnthropicServer,
  createAnthropicServer,
} from './anthropic-server.js';
import {
  BIN,
  type CliResult,
  exampleWorkspace,
  isolatedEnv,
  modelArgs,
  runCli,
} from './run-cli.js';

// A session recorded against an OpenAI-compatible server (Kimi/DeepSeek-style tool call ids and
// unsigned reasoning_content), then continued on Anthropic with thinking on. The scripted
// Anthropic server refuses what the real API refuses, so every accepted request is well formed.

const KEY = 'sk-ant-loopback-switch-42';
const ANTHROPIC = ['--model', 'anthropic/claude-sonnet-4-5'];
const DEEPSEEK_THOUGHT = 'DS_UNSIGNED_THOUGHT: write the file, then read it back';
const TODO = 'buy milk\nship the release\n';
const SIGNED = { text: 'The file exists; count its lines.', signature: 'U2lnbmVkVGhpbmtpbmc=' };

function workspaceWithReasoning(prefix: string): string {
  const cwd = exampleWorkspace(prefix);
  mkdirSync(join(cwd, '.spine'));
  writeFileSync(
    join(cwd, '.spine', 'config.json'),
    JSON.stringify({ reasoning: { enabled: true } }),
  );
  return cwd;
}

type Block = { type: string; id?: string; tool_use_id?: string; signature?: string };

function blocks(request: AnthropicRequest): Block[][] {
  return request.body.messages.map((message: { content: Block[] }) => message.content);
}

/** Every tool id is one Anthropic accepts and every tool_result answers the tool_use before it. */
function expectWellFormedToolIds(request: AnthropicRequest): string[] {
  const turns = blocks(request);
  const used: string[] = [];
  turns.forEach((turn, index) => {
    const uses = turn.filter((block) => block.type === 'tool_use').map((block) => block.id!);
    for (const id of uses) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    used.push(...uses);
    if (uses.length === 0) return;
    const answered = (turns[index + 1] ?? [])
      .filter((block) => block.type === 'tool_result')
      .map((block) => block.tool_use_id);
    if (index + 1 < turns.length) expect(answered).toEqual(uses);
  });
  for (const turn of turns)
    for (const block of turn) if (block.type === 'thinking') expect(block.signature).toBeTruthy();
  return used;
}

async function replayEach(id: string, env: NodeJS.ProcessEnv, sent: string[]): Promise<CliResult> {
  const verified = await runCli(['replay', id, '--verify'], { env });
  // The listing's wire figures are those of the bytes each provider was actually sent.
  const report = JSON.parse((await runCli(['replay', id, '--json'], { env })).stdout);
  expect(report.requests.map((entry: { wireHash: string }) => entry.wireHash)).toEqual(
    sent.map((raw) => `sha256:${createHash('sha256').update(raw).digest('hex')}`),
  );
  for (const [index, raw] of sent.entries()) {
    const printed = await runCli(['replay', id, '--request', String(index + 1)], { env });
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    expect(printed.stdout.trim()).toBe(raw);
  }
  return verified;
}

describe('spine resume on another provider: openai-compatible, then anthropic', {
  timeout: 60_000,
}, () => {
  let openai: ScriptedModelServer;
  let anthropic: AnthropicServer;
  let env: NodeJS.ProcessEnv;
  let cwd: string;
  let first: CliResult;
  let resumed: CliResult;
  let id: string;

  beforeAll(async () => {
    openai = await createScriptedModelServer({
      replies: [
        {
          reasoning: DEEPSEEK_THOUGHT,
          text: 'Writing the list.',
          toolCalls: [
            {
              id: 'functions.write:0',
              name: 'write',
              arguments: JSON.stringify({ path: 'notes/todo.txt', content: TODO }),
            },
          ],
        },
        {
          reasoning: 'DS_SECOND_THOUGHT: check it',
          toolCalls: [
            { id: 'functions.bash:1', name: 'bash', arguments: '{"command":"cat notes/todo.txt"}' },
          ],
        },
        { reasoning: 'DS_THIRD_THOUGHT', text: 'notes/todo.txt holds two items.' },
      ],
    });
    anthropic = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        {
          thinking: SIGNED,
          toolUses: [
            { id: 'toolu_01Count', name: 'bash', input: { command: 'wc -l < notes/todo.txt' } },
          ],
        },
        { thinking: { text: 'Two.', signature: 'c2lnLTI=' }, text: 'The list has 2 lines.' },
        // For a later `spine resume` without --model: it stays on Anthropic.
        { text: 'Still two lines.' },
      ],
    });
    ({ env } = isolatedEnv({ ANTHROPIC_API_KEY: KEY }));
    cwd = workspaceWithReasoning('spine-switch-');
    const common = ['--cwd', cwd, '--approval', 'never-ask'];
    first = await runCli(
      ['run', ...modelArgs(openai.baseUrl), ...common, '--json', 'Write my todo list.'],
      { env },
    );
    id = JSON.parse(first.stdout.split('\n')[0]!).body.sessionId;
    resumed = await runCli(
      ['resume', id, ...ANTHROPIC, '--base-url', anthropic.baseUrl, ...common, 'How many lines?'],
      { env },
    );
  }, 60_000);

  afterAll(async () => {
    await openai.close();
    await anthropic.close();
  });

  it('records a real tool loop on the OpenAI-compatible server with its own tool call ids', () => {
    expect(first.code).toBe(0);
    expect(readFileSync(join(cwd, 'notes', 'todo.txt'), 'utf8')).toBe(TODO);
    expect(openai.requests).toHaveLength(3);
    const last = openai.requests[2]!.body.messages;
    const results = last.filter((message: { role: string }) => message.role === 'tool');
    expect(results.map((message: { tool_call_id: string }) => message.tool_call_id)).toEqual([
      'functions.write:0',
      'functions.bash:1',
    ]);
  });

  it('continues on Anthropic with thinking on: accepted, tool ids rewritten consistently, no unsigned reasoning sent', () => {
    expect(resumed.stderr).not.toContain('error');
    expect(resumed.code).toBe(0);
    expect(anthropic.refused).toEqual([]);
    expect(anthropic.requests).toHaveLength(2);
    expect(resumed.stdout).toContain('The list has 2 lines.');
    for (const request of anthropic.requests) {
      expect(request.body.model).toBe('claude-sonnet-4-5');
      expect(request.body.thinking).toMatchObject({ type: 'enabled' });
      expect(request.raw).not.toContain('DS_');
      expect(request.raw).not.toContain('functions.');
    }
    const used = expectWellFormedToolIds(anthropic.requests[1]!);
    expect(used).toHaveLength(3);
    expect(used[2]).toBe('toolu_01Count');
    expect(new Set(used).size).toBe(3);
    // The DeepSeek turn is history: its tool_use blocks carry rewritten ids, no thinking block.
    const history = blocks(anthropic.requests[0]!);
    expect(history[1]!.map((block) => block.type)).toEqual(['text', 'tool_use']);
    expect(history[3]!.map((block) => block.type)).toEqual(['tool_use']);
    expect(history.at(-1)!.at(-1)).toMatchObject({ type: 'text', text: 'How many lines?' });
    // The Anthropic tool really ran in the workspace.
    const countResult = blocks(anthropic.requests[1]!).at(-1)!.at(-1) as { content: string };
    expect(countResult.content).toContain('2');
  });

  it("replay verifies all five requests and prints each as its own provider's wire body", async () => {
    const sent = [...openai.requests.map((r) => r.raw), ...anthropic.requests.map((r) => r.raw)];
    const verified = await replayEach(id, { ...env, ANTHROPIC_API_KEY: '' }, sent);
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('verified: all 5 requests');
  });

  it('resumes again without --model on the provider last used, and reruns the mixed session offline', async () => {
    const again = await runCli(
      ['resume', id, '--base-url', anthropic.baseUrl, '--cwd', cwd, 'Still?'],
      { env },
    );
    expect(again.stderr).toContain('anthropic/claude-sonnet-4-5');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Still two lines.');
    expect(anthropic.requests).toHaveLength(3);
    expect(anthropic.refused).toEqual([]);
    expect(openai.requests).toHaveLength(3);
    // The mixed session reruns with its recorded outputs (no key, no network), all tools alike.
    const rerun = await runCli(
      ['rerun', id, '--cwd', exampleWorkspace('spine-switch-rerun-'), '--json'],
      { env: { ...env, ANTHROPIC_API_KEY: '' } },
    );
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({
      turns: 3,
      modelOutputs: { recorded: 6, replayed: 6 },
      toolResults: { recorded: 3, same: 3 },
      requestsVerified: { ok: true, count: 6 },
      ok: true,
    });
  });
});

/** Starts `spine run`, waits until `server` has `requests` requests plus 300 ms, then SIGKILLs it. */
async function runThenKill(
  args: string[],
  env: NodeJS.ProcessEnv,
  server: ScriptedModelServer,
  requests: number,
): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const deadline = Date.now() + 20_000;
  while (server.requests.length < requests && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('close', resolve));
  return output;
}

describe('spine resume on Anthropic of a tool turn left open on another provider', {
  timeout: 60_000,
}, () => {
  it('continues the open turn without thinking (accepted), then thinks again on the next task', async () => {
    const openai = await createScriptedModelServer({
      replies: [
        {
          reasoning: DEEPSEEK_THOUGHT,
          toolCalls: [
            {
              id: 'functions.write:0',
              name: 'write',
              arguments: JSON.stringify({ path: 'notes/todo.txt', content: TODO }),
            },
          ],
        },
        { stallAfterChunks: 2, text: 'Checking the list for a long while…' },
      ],
    });
    const anthropic = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        {
          text: 'Checking it.',
          toolUses: [{ id: 'toolu_01Cat', name: 'bash', input: { command: 'cat notes/todo.txt' } }],
        },
        { text: 'The interrupted task is done.' },
        { thinking: SIGNED, text: 'Nothing else to do.' },
      ],
    });
    try {
      const { env } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
      const cwd = workspaceWithReasoning('spine-switch-crash-');
      const common = ['--cwd', cwd, '--approval', 'never-ask'];
      // Killed while the second request (after the tool ran) is stalled mid-stream.
      const output = await runThenKill(
        [...modelArgs(openai.baseUrl), ...common, '--json', 'Write my todo list.'],
        env,
        openai,
        2,
      );
      const id = JSON.parse(output.split('\n')[0]!).body.sessionId as string;
      expect(readFileSync(join(cwd, 'notes', 'todo.txt'), 'utf8')).toBe(TODO);

      const resumed = await runCli(
        ['resume', id, ...ANTHROPIC, '--base-url', anthropic.baseUrl, ...common, 'Anything else?'],
        { env },
      );
      expect(resumed.stderr).not.toContain('error');
      expect(resumed.code).toBe(0);
      expect(anthropic.refused).toEqual([]);
      expect(anthropic.requests).toHaveLength(3);
      expect(resumed.stdout).toContain('The interrupted task is done.');
      expect(resumed.stdout).toContain('Nothing else to do.');
      const [continued, next, newTask] = anthropic.requests as [
        AnthropicRequest,
        AnthropicRequest,
        AnthropicRequest,
      ];
      // The open turn (opened on the other provider, without a signed thinking block) continues
      // without thinking, on both of its Anthropic steps.
      expect(continued.body.thinking).toBeUndefined();
      expect(
        blocks(continued)
          .at(-1)!
          .map((block) => block.type),
      ).toEqual(['tool_result']);
      expect(next.body.thinking).toBeUndefined();
      // A new turn may think again.
      expect(newTask.body.thinking).toMatchObject({ type: 'enabled' });
      for (const request of anthropic.requests) {
        expect(request.raw).not.toContain('DS_');
        expect(request.raw).not.toContain('functions.');
      }
      expect(expectWellFormedToolIds(newTask)).toHaveLength(2);

      const sent = [...openai.requests.map((r) => r.raw), ...anthropic.requests.map((r) => r.raw)];
      const verified = await replayEach(id, env, sent);
      expect(verified.code).toBe(0);
      expect(verified.stdout).toContain('verified: all 5 requests');
    } finally {
      await openai.close();
      await anthropic.close();
    }
  });
});
