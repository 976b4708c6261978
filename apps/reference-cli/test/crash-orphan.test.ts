// An unsandboxed foreground command outlives a SIGKILLed CLI (nothing ends it with Spine, unlike
// bubblewrap's --die-with-parent): `spine resume` must find it still running, stop it before it
// judges the workspace, and say so; never "verified … stopped" for a command that still runs.
// As root the CLI runs as nobody (65534): the check reads /proc/<pid>/environ, which an
// unprivileged user may only do for its own processes.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { processesWith } from './jobs-helpers.js';
import { BIN, isolatedEnv, modelArgs, tempFolder } from './run-cli.js';

type Event = { seq: number; type: string; body: Record<string, unknown> };
const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `spine <args>` as the test's user (nobody when root); `onOutput` sees stdout as it comes. */
function spine(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...asNobody,
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out })),
  );
  return { child, done };
}

describe.runIf(process.platform === 'linux')(
  'an unsandboxed command after SIGKILL of the CLI',
  () => {
    it('resume stops the command still running, then reports what it changed and that it was stopped', async () => {
      const marker = `${Math.floor(Math.random() * 1e5) + 7000}.875`;
      const command = `touch before_marker; sleep ${marker}; touch late_marker`;
      const server = await createScriptedModelServer({
        replies: [
          { toolCalls: [{ id: 'c_1', name: 'bash', arguments: JSON.stringify({ command }) }] },
          { text: 'Resumed.' },
        ],
      });
      const setup = isolatedEnv();
      const workspace = join(tempFolder('spine-orphan-'), 'workspace');
      for (const dir of [setup.sessionDir, join(setup.root, 'config'), workspace])
        mkdirSync(dir, { recursive: true });
      // nobody writes the session, its configuration and the workspace.
      for (const dir of [setup.root, setup.sessionDir, join(setup.root, 'config'), workspace])
        chmodSync(dir, 0o777);
      chmodSync(join(workspace, '..'), 0o777);
      const flags = [
        ...modelArgs(server.baseUrl),
        '--cwd',
        workspace,
        '--sandbox',
        'danger-full-access',
        '--approval',
        'never-ask',
      ];
      try {
        const run = spine(['run', ...flags, '--json', 'go'], setup.env);
        const deadline = Date.now() + 90_000;
        while (
          (!existsSync(join(workspace, 'before_marker')) || processesWith(marker).length === 0) &&
          Date.now() < deadline
        )
          await pause(50);
        run.child.kill('SIGKILL');
        const { out } = await run.done;
        const id = /"sessionId":"([^"]+)"/.exec(out)?.[1] as string;
        expect(id, out).toBeDefined();
        // The command outlived the CLI.
        expect(processesWith(marker).length).toBeGreaterThan(0);

        const resumed = await spine(['resume', id, ...flags], setup.env).done;
        expect(resumed.code, resumed.out).toBe(0);
        // Nothing of it survives the resume, and it never reached its last step.
        expect(processesWith(marker)).toEqual([]);
        const events = readFileSync(join(setup.sessionDir, `${id}.jsonl`), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Event);
        const results = events
          .filter((e) => e.type === 'tool/result' && e.body.toolCallId === 'c_1')
          .map((e) => e.body);
        expect(results).toHaveLength(1);
        const result = results[0] as { content: string; meta: Record<string, unknown> };
        expect(result.content).toMatch(
          /^\[this command was still running when the session resumed \(pids? [\d, ]+\); Spine stopped it \(SIGTERM, then SIGKILL\) before checking the workspace\.\] verified after/,
        );
        expect(result.content).toContain('A before_marker');
        expect(result.meta).toMatchObject({
          verdict: 'files-changed',
          verifiedAfterCrash: true,
          leftRunning: 'stopped',
          changedFiles: ['added before_marker'],
        });
        // The model was told in the resumed request.
        expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('Spine stopped it');
        await pause(1500);
        expect(existsSync(join(workspace, 'late_marker'))).toBe(false);
      } finally {
        for (const pid of processesWith(marker))
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        await server.close();
      }
    }, 240_000);
  },
);
