// A shell command's multi-line output, live, in the real CLI in a real terminal (tmux): real lines
// (tabs and line breaks kept, a progress bar's carriage return restarting its line), escape
// sequences shown as text, the rest folded past 20 lines with the way to the full output.
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const COMMAND = [
  "printf 'alpha\\tbeta\\ngamma\\n'",
  "printf '10%%\\r100%%\\n'",
  "printf 'x\\033[2J\\033]0;pwned\\007\\342\\200\\256y\\n'",
  'seq 101 125',
].join('; ');

describe('live tool output in a real terminal', () => {
  it('shows a running command output as real lines and folds the rest', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: COMMAND }) },
          ],
        },
        { text: 'All done.' },
      ],
    });
    const workspace = exampleWorkspace('spine-live-output-');
    const { env } = isolatedEnv();
    const args = [...modelArgs(server.baseUrl), '--approval', 'never-ask'];
    const terminal = new TmuxTerminal(spineCommand(BIN, env, args), { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('run it');
      const screen = await terminal.waitFor(/All done\./);
      const lines = screen.split('\n');
      const first = lines.findIndex((line) => line.includes('│ alpha'));
      expect(lines.slice(first, first + 5)).toEqual([
        '    │ alpha     beta', // the tab stops at column 16
        '    │ gamma',
        '    │ 100%',
        '    │ x\\x1b[2J\\x1b]0;pwned\\x07\\u202ey',
        '    │ 101',
      ]);
      // 29 lines: 20 shown, 9 folded.
      expect(lines[first + 19]).toBe('    │ 116');
      expect(lines[first + 20]).toMatch(
        /^ {4}… 9 more lines \(full output: spine show \S+ --events\)$/,
      );
      expect(screen).not.toContain('\\x0a');
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 90_000);
});
