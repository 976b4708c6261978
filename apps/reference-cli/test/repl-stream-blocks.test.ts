// The REPL in a real 80-column terminal (tmux) against the scripted model server on 127.0.0.1:
// an attempt whose connection dropped is marked as discarded before the retried answer, two
// steps' answers (input queued during the first) stay apart though the first has no final line
// feed, and the banner and status line break between their figures, never inside a word.
import { createScriptedModelServer } from '@spine/test-utils';
import { displayWidth } from '@spine/tui';
import { describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, modelArgs, tempFolder } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

describe('the REPL in an 80-column terminal', () => {
  it('marks a broken-off attempt, keeps steps apart and fits the status line by figures', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          dropAfterChunks: 6,
          text: 'Partial answer line one.\n\nSecond paragraph ',
        },
        { text: 'First answer without trailing newline.', chunkSize: 2, delayMs: 150 },
        { text: 'Second step answer.', chunkSize: 2 },
      ],
    });
    const { env } = isolatedEnv();
    const { NO_COLOR: _, ...colourEnv } = env;
    const terminal = new TmuxTerminal(spineCommand(BIN, colourEnv, modelArgs(server.baseUrl)), {
      cwd: tempFolder('spine-repl-blocks-'),
      width: 80,
      height: 50,
    });
    try {
      const banner = (await terminal.waitFor(/›$/)).split('\n');
      // The session line is 81 columns: it breaks before a figure, not inside one.
      expect(banner, banner.join('\n')).toContain('Ctrl-C cancels, twice exits');
      const mark = terminal.screen().length;
      terminal.type('go');
      // The retried answer streams for about 3 s: input typed 1 s in is queued for a next step.
      await terminal.waitFor(/retry: attempt 2/, { from: mark });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      terminal.type('extra note');
      const screen = await terminal.waitFor(/Second step answer\.[\s\S]*›$/, { from: mark });
      const turn = screen.slice(mark);
      const lines = turn.split('\n');
      const discarded = lines.findIndex((line) => line.includes('attempt 1 broke off'));
      expect(discarded, turn).toBeGreaterThan(lines.indexOf('Second paragr'));
      // The first step's answer ends its line, and a blank line sets the next step's apart.
      const first = lines.indexOf('First answer without trailing newline.');
      expect(first, turn).toBeGreaterThan(discarded);
      expect(lines.slice(first + 1, first + 3), turn).toEqual(['', 'Second step answer.']);
      // The status line under the answer: rows of at most 80 columns, each figure whole.
      const rows = terminal.rawScreen().split('\n');
      const status = rows.slice(rows.lastIndexOf('Second step answer.') + 1);
      const figures = status.slice(
        0,
        status.findIndex((row) => row.startsWith('›')),
      );
      for (const row of figures) expect(displayWidth(row), row).toBeLessThanOrEqual(80);
      const joined = figures.filter((row) => row !== '').join(' · ');
      expect(joined).toMatch(/ · cache hit of last request \d+% \(\S+ tokens\) · /);
      expect(joined).toMatch(/ · cost \$\S+ this session · sandbox \S+$/);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 120_000);
});
