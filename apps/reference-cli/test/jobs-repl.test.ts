import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { processesWith } from './jobs-helpers.js';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

type Event = { seq: number; type: string; body: Record<string, unknown> };
const background = (id: string, command: string) => ({
  toolCalls: [
    { id, name: 'bash', arguments: JSON.stringify({ command, run_in_background: true }) },
  ],
});

describe('background jobs in the interactive session', () => {
  it('shows running jobs, asks before an exit stops them, /kill stops one; both ends recorded', async () => {
    const first = `${Math.floor(Math.random() * 1e5) + 7000}.25`;
    const second = `${Math.floor(Math.random() * 1e5) + 7000}.75`;
    const server = await createScriptedModelServer({
      replies: [
        background('b_1', `sleep ${first}`),
        { text: 'Started the first.' },
        background('b_2', `sleep ${second}`),
        { text: 'Started the second.' },
      ],
    });
    const workspace = exampleWorkspace('spine-jobs-repl-');
    const { env, sessionDir } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'never-ask',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('start a server');
      await terminal.waitFor(
        /1 background job still running \(job-1\)[\s\S]*jobs running: job-1[\s\S]*\n›$/,
      );
      terminal.type('/jobs');
      await terminal.waitFor(/job-1\s+running.*sleep/);
      // Ctrl-C twice would exit: with a job running, it asks first; Enter keeps working.
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/1 background job running \(job-1\)\. Exit and stop it\?/);
      terminal.press('Enter');
      await terminal.waitFor(/background jobs keep running/);
      expect(processesWith(first).length).toBeGreaterThan(0);
      terminal.type('/kill job-1');
      await terminal.waitFor(/stopped job-1\s+killed \(person\)/);
      terminal.type('start another');
      await terminal.waitFor(/Started the second\.[\s\S]*jobs running: job-2[\s\S]*\n›$/);
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/Exit and stop it\?/);
      terminal.press('C-c');
      await terminal.waitFor(/EXITED:130/);
    } finally {
      terminal.close();
      await server.close();
    }
    expect(processesWith(first)).toEqual([]);
    expect(processesWith(second)).toEqual([]);
    const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl')) as string;
    const events = readFileSync(join(sessionDir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    expect(events.filter((e) => e.type === 'job/start').map((e) => e.body.id)).toEqual([
      'job-1',
      'job-2',
    ]);
    expect(events.filter((e) => e.type === 'job/end').map((e) => e.body)).toMatchObject([
      { id: 'job-1', killed: true, by: 'person' },
      { id: 'job-2', killed: true, by: 'exit' },
    ]);
    // The person's /kill reached the model at its next step, through the inbox.
    const notes = events.filter(
      (e) => e.type === 'user/message' && String(e.body.content).includes('stopped by the user'),
    );
    expect(notes).toHaveLength(1);
    const sessionId = file.replace(/\.jsonl$/, '');
    const replay = await runCli(['replay', sessionId, '--verify'], { env, cwd: workspace });
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
  }, 120_000);
});
