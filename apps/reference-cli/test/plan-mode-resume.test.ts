import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

// Resume keeps plan mode (issue 38): `spine resume <id>` of a session left in plan mode resumes
// in plan mode (recorded `by: "resume"`), and only an explicit `--approval` on that command line
// leaves it (recorded too); the session replays with --verify and reruns offline.

type Event = { seq: number; type: string; body: Record<string, unknown> };

function sessionLog(sessionDir: string): Event[] {
  const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'));
  if (!file) throw new Error(`no session in ${sessionDir}`);
  return readFileSync(join(sessionDir, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
}

const write = (id: string) => ({
  toolCalls: [{ id, name: 'write', arguments: JSON.stringify({ path: 'made.txt', content: 'x' }) }],
});

describe('spine resume of a session in plan mode', { timeout: 400_000 }, () => {
  it('stays in plan mode unless --approval is given again, each recorded; replays and reruns', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { text: 'Plan:\n1. Write made.txt.' },
        write('w1'),
        { text: 'Plan mode refused the write.' },
        write('w2'),
        { text: 'Wrote made.txt.' },
      ],
    });
    try {
      const { env, sessionDir } = isolatedEnv();
      const cwd = exampleWorkspace('spine-plan-resume-');
      const model = modelArgs(server.baseUrl);
      const first = await runCli(
        ['run', ...model, '--cwd', cwd, '--approval', 'plan', '--json', 'plan it'],
        { env, timeoutMs: 180_000 },
      );
      expect(first.code, first.stderr).toBe(0);
      const id = (sessionLog(sessionDir)[0]?.body.sessionId as string) ?? '';

      // No --approval: the configured default (ask) does not take the session out of plan mode.
      const kept = await runCli(['resume', id, ...model, '--cwd', cwd, 'write it'], {
        env,
        timeoutMs: 180_000,
      });
      expect(kept.code, kept.stderr).toBe(4);
      // The hint names plan mode: nobody was going to be asked.
      expect(kept.stderr).toContain('the session is in plan mode');
      expect(kept.stderr).not.toContain('nobody could be asked');
      expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
      let log = sessionLog(sessionDir);
      expect(log.find((e) => e.type === 'tool/approval')?.body).toMatchObject({
        toolCallId: 'w1',
        decision: 'deny',
        by: 'policy:plan',
      });

      // An explicit --approval leaves plan mode for it.
      const left = await runCli(
        ['resume', id, ...model, '--cwd', cwd, '--approval', 'auto-edit', '--json', 'write it'],
        { env, timeoutMs: 180_000 },
      );
      expect(left.code, left.stderr).toBe(0);
      expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('x');
      log = sessionLog(sessionDir);
      expect(log.filter((e) => e.type === 'plan/mode').map((e) => e.body)).toEqual([
        { mode: 'plan', approval: 'plan', by: 'config' },
        { mode: 'plan', approval: 'plan', previous: 'ask', by: 'resume' },
        { mode: 'implement', approval: 'auto-edit', previous: 'plan', by: 'resume' },
      ]);
      // Each switch precedes the turn it governs.
      const turnStarts = log.filter((e) => e.type === 'turn/start').map((e) => e.seq);
      const switches = log.filter((e) => e.type === 'plan/mode').map((e) => e.seq);
      expect(switches.map((seq, i) => seq < (turnStarts[i] ?? 0))).toEqual([true, true, true]);

      const replay = await runCli(['replay', id, '--verify'], { env, cwd });
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      const requests = server.requests.length;
      const fresh = exampleWorkspace('spine-plan-resume-rerun-');
      const rerun = await runCli(['rerun', id, '--cwd', fresh], { env, timeoutMs: 180_000 });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(existsSync(join(fresh, 'made.txt'))).toBe(true);
      expect(server.requests.length).toBe(requests);
    } finally {
      await server.close();
    }
  });
});
