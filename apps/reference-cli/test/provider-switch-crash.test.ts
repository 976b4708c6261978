import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AnthropicRequest, createAnthropicServer } from './anthropic-server.js';
import {
  ANTHROPIC,
  blocks,
  expectWellFormedToolIds,
  KEY,
  replayEach,
  runThenKill,
  SIGNED,
  stallingToolLoopServer,
  TASK_LIST,
  workspaceWithReasoning,
} from './provider-switch-fixtures.js';
import { isolatedEnv, modelArgs, runCli } from './run-cli.js';

describe('spine resume on Anthropic of a tool turn left open on another provider', {
  timeout: 240_000,
}, () => {
  it('continues the open turn without thinking (accepted), then thinks again on the next task', async () => {
    const openai = await stallingToolLoopServer();
    const anthropic = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        {
          text: 'Checking it.',
          toolUses: [
            { id: 'toolu_01Cat', name: 'bash', input: { command: 'cat notes/tasks.txt' } },
          ],
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
        [...modelArgs(openai.baseUrl), ...common, '--json', 'Write my task list.'],
        env,
        openai,
        2,
      );
      const id = JSON.parse(output.split('\n')[0]!).body.sessionId as string;
      expect(readFileSync(join(cwd, 'notes', 'tasks.txt'), 'utf8')).toBe(TASK_LIST);

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

  it('sends a new task after a tool loop aborted on another provider without thinking (accepted)', async () => {
    const openai = await stallingToolLoopServer();
    const anthropic = await createAnthropicServer({
      apiKey: KEY,
      replies: [{ text: 'Started over: the list is written.' }],
    });
    try {
      const { env } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
      const cwd = workspaceWithReasoning('spine-switch-abort-');
      const common = ['--cwd', cwd, '--approval', 'never-ask'];
      // SIGTERM aborts the turn cleanly (agent/aborted, turn/end) after its tool result.
      const output = await runThenKill(
        [...modelArgs(openai.baseUrl), ...common, '--json', 'Write my task list.'],
        env,
        openai,
        2,
        'SIGTERM',
      );
      const id = JSON.parse(output.split('\n')[0]!).body.sessionId as string;
      const resumed = await runCli(
        ['resume', id, ...ANTHROPIC, '--base-url', anthropic.baseUrl, ...common, 'Is it done?'],
        { env },
      );
      expect(resumed.code).toBe(0);
      expect(anthropic.refused).toEqual([]);
      const [request] = anthropic.requests as [AnthropicRequest];
      // The new text joins the user turn that holds the tool result: the tool loop that opened
      // without a thinking block is still the last one, so no thinking is sent.
      expect(
        blocks(request)
          .at(-1)!
          .map((block) => block.type),
      ).toEqual(['tool_result', 'text']);
      expect(request.body.thinking).toBeUndefined();
      expect(resumed.stdout).toContain('Started over: the list is written.');
    } finally {
      await openai.close();
      await anthropic.close();
    }
  });
});
