import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

type Event = { seq: number; type: string; body: Record<string, unknown> };
const write = (id: string) => ({
  toolCalls: [{ id, name: 'write', arguments: JSON.stringify({ path: 'plan.txt', content: id }) }],
});

describe('/plan and /implement in the interactive session', () => {
  it('plans without effects, then implements under the previous policy; both switches recorded', async () => {
    const server = await createScriptedModelServer({
      replies: [
        write('w_plan'),
        { text: 'Plan:\n1. Write plan.txt.' },
        write('w_go'),
        { text: 'Done.' },
      ],
    });
    const workspace = exampleWorkspace('spine-plan-repl-');
    const { env, sessionDir } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'never-ask',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('/plan');
      await terminal.waitFor(/plan mode: reads, searches and fetches only.*\(was never-ask\)/);
      terminal.type('/approval auto-edit');
      await terminal.waitFor(/plan mode is switched with \/plan and left with \/implement/);
      terminal.type('write plan.txt');
      await terminal.waitFor(/1\. Write plan\.txt\.[\s\S]*\n›$/);
      expect(existsSync(join(workspace, 'plan.txt'))).toBe(false);
      terminal.type('/implement');
      await terminal.waitFor(/plan mode off: approval policy never-ask/);
      terminal.type('go ahead');
      await terminal.waitFor(/Done\.[\s\S]*\n›$/);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
    expect(readFileSync(join(workspace, 'plan.txt'), 'utf8')).toBe('w_go');
    const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl')) as string;
    const events = readFileSync(join(sessionDir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    expect(events.filter((e) => e.type === 'plan/mode').map((e) => e.body)).toEqual([
      { mode: 'plan', approval: 'plan', previous: 'never-ask', by: 'person' },
      { mode: 'implement', approval: 'never-ask', previous: 'plan', by: 'person' },
    ]);
    const approvals = events.filter((e) => e.type === 'tool/approval').map((e) => e.body);
    expect(approvals).toMatchObject([
      { toolCallId: 'w_plan', decision: 'deny', by: 'policy:plan' },
      { toolCallId: 'w_go', decision: 'allow', by: 'policy:never-ask' },
    ]);
    const systemOf = (index: number) =>
      ((server.requests[index]?.body?.messages ?? []) as { content: string }[])[0]?.content ?? '';
    expect(systemOf(0)).toContain('Plan mode is on.');
    expect(systemOf(2)).not.toContain('Plan mode is on.');

    const sessionId = file.replace(/\.jsonl$/, '');
    const replay = await runCli(['replay', sessionId, '--verify'], { env, cwd: workspace });
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    // The rerun starts in a fresh copy of the workspace and repeats both switches.
    const fresh = exampleWorkspace('spine-plan-rerun-');
    const rerun = await runCli(['rerun', sessionId, '--cwd', fresh, '--approval', 'never-ask'], {
      env,
      cwd: fresh,
      timeoutMs: 120_000,
    });
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/tool results identical: 2\/2/);
    expect(readFileSync(join(fresh, 'plan.txt'), 'utf8')).toBe('w_go');
  }, 200_000);
});
