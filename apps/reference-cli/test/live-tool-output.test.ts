// A shell command's multi-line output, live, in the real CLI in a real terminal (tmux): real lines
// (tabs and line breaks kept, a progress bar's carriage return restarting its line), escape
// sequences shown as text; while it runs its last lines live in the live region, once it ended the
// last 20 are printed after a line counting the earlier ones, with the way to the full output.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const COMMAND = [
  "printf 'first\\nsecond\\n'",
  // Waits for the test to see the running output in the live region.
  'until [ -f go ]; do sleep 0.1; done',
  'seq 101 125',
  "printf 'alpha\\tbeta\\ngamma\\n'",
  "printf '10%%\\r100%%\\n'",
  "printf 'x\\033[2J\\033]0;pwned\\007\\342\\200\\256y\\n'",
].join('; ');

describe('live tool output in a real terminal', () => {
  it('shows a running command output as real lines in the live region, then its last lines', async () => {
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
      // While it runs, its last lines are in the live region under the output.
      const running = await terminal.waitFor(/│ first\n\s*│ second$/);
      expect(running).toMatch(/→ bash command=/);
      writeFileSync(join(workspace, 'go'), '');
      const screen = await terminal.waitFor(/All done\./);
      const lines = screen.split('\n');
      // 31 lines: the first 11 folded, the last 20 printed once it ended; nothing else left over.
      const fold = lines.findIndex((line) => line.includes('earlier lines'));
      expect(lines[fold]).toMatch(
        /^ {4}… 11 earlier lines \(full output: spine show \S+ --events\)$/,
      );
      expect(lines.slice(fold + 1, fold + 21)).toEqual([
        ...Array.from({ length: 16 }, (_, i) => `    │ ${110 + i}`),
        '    │ alpha     beta', // the tab stops at column 16
        '    │ gamma',
        '    │ 100%',
        '    │ x\\x1b[2J\\x1b]0;pwned\\x07\\u202ey',
      ]);
      expect(lines[fold + 21]).toMatch(/^ {2}✓ bash /);
      expect(screen.match(/│ first/g)).toBeNull();
      expect(screen).not.toContain('\\x0a');
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/EXITED:130/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 90_000);
});
