import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { expect } from 'vitest';
import type { AnthropicRequest } from './anthropic-server.js';
import { BIN, type CliResult, exampleWorkspace, runCli } from './run-cli.js';

// Shared by the provider-switch tests: a session recorded against an OpenAI-compatible server
// (Kimi/DeepSeek-style tool call ids, unsigned reasoning_content), then continued on Anthropic
// with thinking on. The scripted Anthropic server refuses what the real API refuses, so every
// accepted request is well formed.

/** The key the scripted Anthropic server expects. */
export const KEY = 'sk-ant-loopback-switch-42';
/** The `--model` flag of the second provider. */
export const ANTHROPIC = ['--model', 'anthropic/claude-sonnet-4-5'];
/** Unsigned DeepSeek-style reasoning: never to be sent to Anthropic (every such text has `DS_`). */
export const DEEPSEEK_THOUGHT = 'DS_UNSIGNED_THOUGHT: write the file, then read it back';
/** What the first provider's `write` call puts in notes/tasks.txt. */
export const TASK_LIST = 'buy milk\nship the release\n';
/** A signed Anthropic thinking block. */
export const SIGNED = {
  text: 'The file exists; count its lines.',
  signature: 'U2lnbmVkVGhpbmtpbmc=',
};

/** A copy of the example workspace whose project config turns reasoning on. */
export function workspaceWithReasoning(prefix: string): string {
  const cwd = exampleWorkspace(prefix);
  mkdirSync(join(cwd, '.spine'));
  writeFileSync(
    join(cwd, '.spine', 'config.json'),
    JSON.stringify({ reasoning: { enabled: true } }),
  );
  return cwd;
}

/** An Anthropic content block, as far as these tests look. */
export type Block = {
  type: string;
  id?: string;
  tool_use_id?: string;
  signature?: string;
  content?: string;
};

/** The content blocks of each turn of an Anthropic request. */
export function blocks(request: AnthropicRequest): Block[][] {
  return request.body.messages.map((message: { content: Block[] }) => message.content);
}

/** Every tool id is one Anthropic accepts and every tool_result answers the tool_use before it. */
export function expectWellFormedToolIds(request: AnthropicRequest): string[] {
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

/**
 * `spine replay --verify` of session `id`, after checking that the listing's wire hashes and
 * `--request N` print exactly the bytes `sent` (in order) that each provider received.
 */
export async function replayEach(
  id: string,
  env: NodeJS.ProcessEnv,
  sent: string[],
): Promise<CliResult> {
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

/** Starts `spine run`, waits until `server` has `requests` requests plus 300 ms, then kills it. */
export async function runThenKill(
  args: string[],
  env: NodeJS.ProcessEnv,
  server: ScriptedModelServer,
  requests: number,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  // A cold start from the TypeScript sources on a loaded machine can take tens of seconds.
  const deadline = Date.now() + 90_000;
  while (server.requests.length < requests && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (server.requests.length < requests) {
    child.kill('SIGKILL');
    throw new Error(`spine made ${server.requests.length} of ${requests} requests in 90 s`);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill(signal);
  await new Promise((resolve) => child.on('close', resolve));
  return output;
}

/**
 * An OpenAI-compatible server whose first reply writes the task list (Kimi-style tool id,
 * DeepSeek reasoning) and whose second reply stalls mid-stream, leaving the tool turn open.
 */
export function stallingToolLoopServer(): Promise<ScriptedModelServer> {
  return createScriptedModelServer({
    replies: [
      {
        reasoning: DEEPSEEK_THOUGHT,
        toolCalls: [
          {
            id: 'functions.write:0',
            name: 'write',
            arguments: JSON.stringify({ path: 'notes/tasks.txt', content: TASK_LIST }),
          },
        ],
      },
      { stallAfterChunks: 2, text: 'Checking the list for a long while…' },
    ],
  });
}
