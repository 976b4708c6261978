import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

describe('spine rerun of a session with background jobs', () => {
  it('answers job calls from the recording: same results, no job started again', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            {
              id: 'b_1',
              name: 'bash',
              arguments: JSON.stringify({
                // The marker first: the model kills the job two steps later, which on an idle
                // machine comes before a marker written at the end.
                command:
                  'echo rerun-marker > ran.txt; for i in 1 2 3; do echo line-$i; sleep 0.4; done',
                run_in_background: true,
              }),
            },
          ],
        },
        { toolCalls: [{ id: 'o_1', name: 'job_output', arguments: '{"id":"job-1"}' }] },
        { toolCalls: [{ id: 'k_1', name: 'job_kill', arguments: '{"id":"job-1"}' }] },
        { text: 'Done with the job.' },
      ],
    });
    try {
      const cwd = exampleWorkspace('spine-jobs-rerun-');
      const { env } = isolatedEnv();
      const run = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--json',
          '--approval',
          'never-ask',
          'go',
        ],
        { env, cwd },
      );
      expect(run.code, run.stderr).toBe(0);
      const id = JSON.parse(run.stdout.split('\n')[0] as string).body.sessionId as string;
      const fresh = exampleWorkspace('spine-jobs-rerun-fresh-');
      const rerun = await runCli(['rerun', id, '--cwd', fresh, '--approval', 'never-ask'], {
        env,
        cwd: fresh,
        timeoutMs: 120_000,
      });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(rerun.stdout).toContain('tool results identical: 3/3');
      expect(rerun.stdout).toContain('rerun matches the recording');
      // The job ran in the recorded session, not again in the rerun's workspace.
      expect(existsSync(join(cwd, 'ran.txt'))).toBe(true);
      expect(existsSync(join(fresh, 'ran.txt'))).toBe(false);
      const verified = await runCli(['replay', id, '--verify'], { env });
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    } finally {
      await server.close();
    }
  }, 240_000);
});
