import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createScriptedModelServer,
  type ReceivedRequest,
  type ScriptedReply,
} from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

type Event = { seq: number; type: string; turn?: number; body: Record<string, unknown> };

/** A subagent's request: its first user message is the task prompt. */
const inChild = (request: ReceivedRequest): boolean =>
  ((request.body?.messages ?? []) as { role: string; content?: unknown }[])
    .find((message) => message.role === 'user')
    ?.content?.toString()
    .includes('[[kid]]') ?? false;
const stepOf = (request: ReceivedRequest): number =>
  ((request.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'assistant')
    .length;
const usage = (promptTokens: number) => ({ promptTokens, completionTokens: 10 });
const PARENT: ScriptedReply[] = [
  {
    toolCalls: [
      {
        id: 't1',
        name: 'task',
        arguments: JSON.stringify({
          description: 'look',
          prompt: '[[kid]] where is add?',
          profile: 'explore',
        }),
      },
    ],
    usage: usage(10_000),
  },
  {
    toolCalls: [{ id: 'r1', name: 'read', arguments: JSON.stringify({ path: 'src/add.js' }) }],
    usage: usage(50_000),
  },
  // Only after the limit is raised.
  { text: 'Done: add subtracts.', usage: usage(1_000) },
];

const events = (stdout: string): Event[] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);

describe('budgets through the CLI', { timeout: 240_000 }, () => {
  it('a token budget reached with a subagent contributing ends the turn (exit 8); raising it continues', async () => {
    const server = await createScriptedModelServer({
      replies: (request) =>
        inChild(request)
          ? { text: 'src/add.js:1', usage: usage(200_000) }
          : (PARENT[stepOf(request)] ?? { text: 'unscripted' }),
    });
    try {
      const { env } = isolatedEnv();
      const workspace = exampleWorkspace('spine-budget-');
      const base = [...modelArgs(server.baseUrl), '--cwd', workspace, '--approval', 'never-ask'];
      const run = await runCli(['run', ...base, '--max-tokens', '250000', '--json', 'why?'], {
        env,
      });
      const log = events(run.stdout);
      expect(run.code, run.stderr).toBe(8);
      const sessionId = log[0]?.body.sessionId as string;
      const exceeded = log.find((e) => e.type === 'budget/exceeded');
      // Own usage alone (10k + 50k) is under the limit: the subagent's 200k counts.
      expect(exceeded?.body).toMatchObject({ scope: 'session', limit: 'tokens', max: 250_000 });
      expect(exceeded?.body.spent as number).toBeGreaterThanOrEqual(260_000);
      expect(exceeded?.body.message).toMatch(/spent 2\d{5} tokens/);
      expect(log.filter((e) => e.type === 'turn/end').at(-1)?.body.reason).toBe('budget');
      const parentRequests = server.requests.filter((r) => !inChild(r)).length;
      expect(parentRequests).toBe(2); // the third was never sent

      // Raising the limit and continuing the session goes on.
      const resumed = await runCli(
        ['resume', sessionId, ...base, '--max-tokens', '1000000', 'continue'],
        { env },
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout + resumed.stderr).toContain('Done: add subtracts.');

      // Without raising it, the next turn stops before its first request, saying what was spent.
      const again = await runCli(['resume', sessionId, ...base, '--max-tokens', '250000', 'more'], {
        env,
      });
      expect(again.code).toBe(8);
      expect(again.stderr).toMatch(/session budget of 250000 tokens is reached: spent \d+ tokens/);

      const replay = await runCli(['replay', sessionId, '--verify'], { env, cwd: workspace });
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      const requests = server.requests.length;
      const rerun = await runCli(['rerun', sessionId, '--cwd', workspace], { env, cwd: workspace });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(server.requests.length).toBe(requests);
    } finally {
      await server.close();
    }
  });

  it('a cost budget stops a run; an unpriced model refuses --max-cost unless --max-tokens is given', async () => {
    const server = await createScriptedModelServer({
      replies: (request) =>
        stepOf(request) === 0
          ? {
              toolCalls: [{ id: 'r', name: 'read', arguments: '{"path":"src/add.js"}' }],
              usage: usage(100_000),
            }
          : { text: 'Read it.', usage: usage(10) },
    });
    try {
      const { env } = isolatedEnv();
      const workspace = exampleWorkspace('spine-budget-cost-');
      const base = ['--base-url', server.baseUrl, '--cwd', workspace, '--approval', 'never-ask'];
      const priced = ['--model', 'openai-compatible/deepseek-v4-flash', ...base];
      const run = await runCli(['run', ...priced, '--max-cost', '0.001', '--json', 'read'], {
        env,
      });
      expect(run.code, run.stderr).toBe(8);
      const exceeded = events(run.stdout).find((e) => e.type === 'budget/exceeded');
      expect(exceeded?.body).toMatchObject({ scope: 'session', limit: 'cost', max: 0.001 });
      expect(exceeded?.body.message).toMatch(/budget of \$0\.0010 is reached: spent \$0\.\d{4}/);

      const unpriced = ['--model', 'openai-compatible/mystery-model', ...base];
      const refused = await runCli(['run', ...unpriced, '--max-cost', '1', 'read'], { env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        'openai-compatible/mystery-model has none in the model table',
      );
      const bounded = await runCli(
        ['run', ...unpriced, '--max-cost', '1', '--max-tokens', '1000000', 'read'],
        { env },
      );
      expect(bounded.code, bounded.stderr).toBe(0);
      const bad = await runCli(['run', ...priced, '--max-cost', 'lots', 'read'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--max-cost expects a positive amount in USD');
    } finally {
      await server.close();
    }
  });

  it('refuses a zero cost budget like a zero token budget, and words an out-of-range one (exit 2, nothing sent)', async () => {
    const server = await createScriptedModelServer({ replies: [] });
    try {
      const { env, root } = isolatedEnv();
      const workspace = exampleWorkspace('spine-budget-zero-');
      const priced = ['--model', 'openai-compatible/deepseek-v4-flash'];
      const base = [...priced, '--base-url', server.baseUrl, '--cwd', workspace];
      const zeroCost = await runCli(['run', ...base, '--max-cost', '0', 'read'], { env });
      expect(zeroCost.code).toBe(2);
      expect(zeroCost.stderr).toContain(
        '--max-cost expects a positive amount in USD such as 0.50, got "0"',
      );
      const zeroTokens = await runCli(['run', ...base, '--max-tokens', '0', 'read'], { env });
      expect(zeroTokens.code).toBe(2);
      expect(zeroTokens.stderr).toContain('--max-tokens expects a positive integer, got "0"');
      const huge = await runCli(['run', ...base, '--max-tokens', '99999999999999999999', 'read'], {
        env,
      });
      expect(huge.code).toBe(2);
      expect(huge.stderr).toContain(
        'key "maxTokens": expected a whole number no larger than 9007199254740991. Fix the value',
      );
      expect(huge.stderr).not.toContain('Too big');
      // The configuration file's key is held to the same rule.
      mkdirSync(join(root, 'config'), { recursive: true });
      writeFileSync(join(root, 'config', 'config.json'), JSON.stringify({ maxCost: 0 }));
      const fromFile = await runCli(['run', ...base, 'read'], { env });
      expect(fromFile.code).toBe(2);
      expect(fromFile.stderr).toContain('key "maxCost": expected a number greater than 0.');
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
