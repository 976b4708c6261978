import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

describe('interactive mode in a real terminal', () => {
  it('streams, asks approval, completes @paths, queues input, cancels with Ctrl-C and exits on the second', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'bash', arguments: '{"command":"echo hello > greeting.txt"}' },
          ],
        },
        { text: 'Wrote greeting.txt for you.', reasoning: 'The file exists now.' },
        {
          stallAfterChunks: 4,
          text: 'Once upon a time, in a land far away, there lived a very patient agent.',
        },
      ],
    });
    const workspace = exampleWorkspace('spine-tty-');
    const { env } = isolatedEnv();
    const command = spineCommand(BIN, env, [...modelArgs(server.baseUrl), '--approval', 'ask']);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('create greeting.txt');
      await terminal.waitFor(/allow bash.*\n.*reason: .*\n.*\[o\]nce/);
      terminal.type('o');
      await terminal.waitFor(/Wrote greeting\.txt for you\./);
      const afterTurn = await terminal.waitFor(/context .*\(\d+%\) · cache hit .* · cost \$/);
      expect(afterTurn).toContain('thinking: The file exists now.');
      expect(afterTurn).toMatch(/✓ bash/);
      expect(readFileSync(join(workspace, 'greeting.txt'), 'utf8')).toBe('hello\n');

      terminal.type('/cost');
      await terminal.waitFor(/input \d+ · cache hit \d+ · cache write \d+ · output \d+/);

      terminal.type('look at @src/ad', false);
      terminal.press('Tab');
      await terminal.waitFor(/look at @src\/add\.js/);
      terminal.press('C-u');

      const mark = terminal.screen().length;
      terminal.type('tell me a long story');
      await terminal.waitFor(/Once upon/, { from: mark });
      terminal.type('and make it short');
      await terminal.waitFor(/queued for the next step: and make it short/, { from: mark });
      terminal.press('C-c');
      await terminal.waitFor(/cancelling the turn/, { from: mark });
      await terminal.waitFor(/aborted[\s\S]*context [^›]*\n›$/, { from: mark });

      terminal.press('C-c');
      await terminal.waitFor(/Ctrl-C again to exit/, { from: mark });
      terminal.press('C-c');
      // Ctrl-C twice aborts the session: 130, as documented.
      await terminal.waitFor(/EXITED:130/);
      expect(existsSync(join(workspace, 'greeting.txt'))).toBe(true);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 150_000);
});
