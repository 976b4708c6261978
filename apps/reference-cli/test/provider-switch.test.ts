import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnthropicServer, createAnthropicServer } from './anthropic-server.js';
import {
  ANTHROPIC,
  blocks,
  DEEPSEEK_THOUGHT,
  expectWellFormedToolIds,
  KEY,
  replayEach,
  SIGNED,
  TASK_LIST,
  workspaceWithReasoning,
} from './provider-switch-fixtures.js';
import { type CliResult, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

// `spine run` on an OpenAI-compatible server, then `spine resume --model anthropic/…` of the same
// session; the open-turn case (crash mid tool loop) is in provider-switch-crash.test.ts.

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
              arguments: JSON.stringify({ path: 'notes/tasks.txt', content: TASK_LIST }),
            },
          ],
        },
        {
          reasoning: 'DS_SECOND_THOUGHT: check it',
          toolCalls: [
            {
              id: 'functions.bash:1',
              name: 'bash',
              arguments: '{"command":"cat notes/tasks.txt"}',
            },
          ],
        },
        { reasoning: 'DS_THIRD_THOUGHT', text: 'notes/tasks.txt holds two items.' },
      ],
    });
    anthropic = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        {
          thinking: SIGNED,
          toolUses: [
            { id: 'toolu_01Count', name: 'bash', input: { command: 'wc -l < notes/tasks.txt' } },
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
      ['run', ...modelArgs(openai.baseUrl), ...common, '--json', 'Write my task list.'],
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
    expect(readFileSync(join(cwd, 'notes', 'tasks.txt'), 'utf8')).toBe(TASK_LIST);
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
    const countResult = blocks(anthropic.requests[1]!).at(-1)!.at(-1);
    expect(countResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01Count' });
    expect(countResult?.content?.trim()).toBe('2');
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
    // The session list shows the model last used, not the one the session began with.
    const listed = await runCli(['sessions', '--json'], { env });
    const row = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; model: string })
      .find((entry) => entry.id === id);
    expect(row?.model).toBe('anthropic/claude-sonnet-4-5');
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
