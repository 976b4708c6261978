import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const plan = (id: string, steps: [string, string][]) => ({
  toolCalls: [
    {
      id,
      name: 'update_plan',
      arguments: JSON.stringify({ plan: steps.map(([step, status]) => ({ step, status })) }),
    },
  ],
});

describe('update_plan through the CLI', { timeout: 180_000 }, () => {
  it('shows the checklist live and in spine show; a bad plan is refused; replays and reruns', async () => {
    const server = await createScriptedModelServer({
      replies: [
        plan('u1', [
          ['Read src/add.js', 'completed'],
          ['Fix the operator', 'in_progress'],
          ['Run the tests', 'pending'],
        ]),
        plan('u2', [
          ['Fix the operator', 'in_progress'],
          ['Run the tests', 'in_progress'],
        ]),
        { text: 'Planned.' },
      ],
    });
    try {
      const { env } = isolatedEnv();
      const workspace = exampleWorkspace('spine-plan-tool-');
      const run = await runCli(
        ['run', ...modelArgs(server.baseUrl), '--cwd', workspace, '--approval', 'plan', 'plan it'],
        { env },
      );
      expect(run.code, run.stderr).toBe(0);
      const live = run.stdout + run.stderr;
      expect(live).toContain(
        '✓ update_plan plan (1/3 done)\n    ✔ Read src/add.js\n    ▸ Fix the operator\n    ☐ Run the tests',
      );
      expect(live).toMatch(/✗ error update_plan .*at most one step may be in_progress/);
      const sessionId = /session (\d{8}-\d{6}-[0-9a-f]{6})/.exec(run.stderr)?.[1] as string;
      expect(sessionId).toBeDefined();
      const tools = (
        (server.requests[0]?.body?.tools ?? []) as { function: { name: string } }[]
      ).map((tool) => tool.function.name);
      expect(tools).toContain('update_plan');

      const show = await runCli(['show', sessionId], { env, cwd: workspace });
      expect(show.code).toBe(0);
      expect(show.stdout).toContain('[plan mode: reads, searches and fetches only]');
      expect(show.stdout).toContain('    ▸ Fix the operator\n    ☐ Run the tests');

      const replay = await runCli(['replay', sessionId, '--verify'], { env, cwd: workspace });
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      const rerun = await runCli(['rerun', sessionId, '--cwd', workspace], { env, cwd: workspace });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(rerun.stdout).toMatch(/tool results identical: 2\/2/);
    } finally {
      await server.close();
    }
  });
});
