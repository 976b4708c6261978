import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

describe('spine run on a terminal', () => {
  it('asks approval on the terminal and exits 4 when the person denies', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'bash', arguments: '{"command":"touch made-by-agent"}' },
          ],
        },
        { text: 'Understood, I will not run it.' },
      ],
    });
    const workspace = exampleWorkspace('spine-runtty-');
    const { env } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      'run',
      ...modelArgs(server.baseUrl),
      '--approval',
      'ask',
      'make a file',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/allow bash.*\n.*reason: .*\n.*\[d\]eny ›/);
      terminal.type('d');
      const screen = await terminal.waitFor(/EXITED:\d+/);
      expect(screen).toContain('Understood, I will not run it.');
      expect(screen).toContain('EXITED:4');
      expect(existsSync(join(workspace, 'made-by-agent'))).toBe(false);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 150_000);

  it('takes a key and the Enter typed after it, read together, as that key', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'bash', arguments: '{"command":"touch made-by-agent"}' },
          ],
        },
        { text: 'Understood, I will not run it.' },
      ],
    });
    const workspace = exampleWorkspace('spine-runtty-enter-');
    const { env } = isolatedEnv();
    const args = ['run', ...modelArgs(server.baseUrl), '--approval', 'ask', 'make a file'];
    const terminal = new TmuxTerminal(spineCommand(BIN, env, args), { cwd: workspace });
    // The CLI is the node process whose command line names this server (not tmux, not the shell).
    const cli = `^${process.execPath} .*${server.baseUrl}`;
    const signal = (name: string) => execFileSync('pkill', [`-${name}`, '-f', cli]);
    try {
      await terminal.waitFor(/allow bash.*\n.*reason: .*\n.*\[d\]eny ›/);
      // Stopped, the CLI cannot read `d` before the Enter arrives: one read holds both.
      signal('STOP');
      terminal.type('d');
      signal('CONT');
      const screen = await terminal.waitFor(/EXITED:\d+/);
      expect(screen).toContain('denied');
      expect(screen).toContain('EXITED:4');
      expect(existsSync(join(workspace, 'made-by-agent'))).toBe(false);
    } finally {
      try {
        signal('CONT'); // never leave it stopped when an expectation failed in between
      } catch {
        // Already exited: nothing to continue.
      }
      terminal.close();
      await server.close();
    }
  }, 150_000);
});
