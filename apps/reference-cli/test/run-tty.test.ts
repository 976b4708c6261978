import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

/**
 * Runs `spine run --approval ask` in tmux against a model that asks for `bash`, lets `answer`
 * deny at the prompt (given the pattern that finds the CLI's node process), and checks the run
 * exits 4 with nothing run. Returns the final screen.
 */
async function deniedRun(answer: (terminal: TmuxTerminal, cli: string) => void): Promise<string> {
  const server = await createScriptedModelServer({
    replies: [
      {
        toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"touch made-by-agent"}' }],
      },
      { text: 'Understood, I will not run it.' },
    ],
  });
  const workspace = exampleWorkspace('spine-runtty-');
  const { env } = isolatedEnv();
  const args = ['run', ...modelArgs(server.baseUrl), '--approval', 'ask', 'make a file'];
  const terminal = new TmuxTerminal(spineCommand(BIN, env, args), { cwd: workspace });
  // The CLI is the node process whose command line names this server (not tmux, not the shell).
  const cli = `^${process.execPath} .*${server.baseUrl}`;
  try {
    await terminal.waitFor(/allow bash.*\n.*reason: .*\n.*\[d\]eny ›/);
    answer(terminal, cli);
    const screen = await terminal.waitFor(/EXITED:\d+/);
    expect(screen).toContain('EXITED:4');
    expect(existsSync(join(workspace, 'made-by-agent'))).toBe(false);
    return screen;
  } finally {
    try {
      execFileSync('pkill', ['-CONT', '-f', cli]); // never leave it stopped after a failure
    } catch {
      // Not stopped, or already exited.
    }
    terminal.close();
    await server.close();
  }
}

describe('spine run on a terminal', () => {
  it('asks approval on the terminal and exits 4 when the person denies', async () => {
    const screen = await deniedRun((terminal) => terminal.type('d'));
    expect(screen).toContain('Understood, I will not run it.');
  }, 150_000);

  it('takes a key and the Enter typed after it, read together, as that key', async () => {
    const screen = await deniedRun((terminal, cli) => {
      // Stopped, the CLI cannot read `d` before the Enter arrives: one read holds both.
      execFileSync('pkill', ['-STOP', '-f', cli]);
      terminal.type('d');
      execFileSync('pkill', ['-CONT', '-f', cli]);
    });
    expect(screen).toContain('denied');
  }, 150_000);
});
