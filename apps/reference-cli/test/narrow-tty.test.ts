// The real CLI in a 20-column terminal (tmux): the model's Markdown (heading, list, table with
// wide characters, code, a long link), a tool call and its live output all fit the width, so no
// rendered line is wrapped by the terminal; the status line takes as many lines as it needs (capture-pane -J would join such rows into one).
import { createScriptedModelServer } from '@spine/test-utils';
import { displayWidth } from '@spine/tui';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const ANSWER = [
  '## A heading that is long n1',
  '',
  'A paragraph n2 with **bold** words and a https://example.com/a/very/long/path/n3 link.',
  '',
  '- a list item n4 that wraps',
  '  1. nested n5 item text',
  '',
  '| k | 状態 |',
  '|---|---|',
  '| n6 | 漢字 👍 |',
  '',
  '```ts',
  'const n7 = "a long line of code";',
  '```',
  '',
].join('\n');

describe('a 20-column terminal', () => {
  it('renders Markdown, tool lines and live output without a line the terminal wraps', async () => {
    const command = 'echo "out-n8 $(printf %040d 0)"; sleep 1; echo done-n9';
    const server = await createScriptedModelServer({
      replies: [
        {
          text: ANSWER,
          toolCalls: [{ id: 'call_1', name: 'bash', arguments: JSON.stringify({ command }) }],
        },
        { text: 'Finished n10.' },
      ],
    });
    const workspace = exampleWorkspace('spine-narrow-');
    const { env } = isolatedEnv();
    const { NO_COLOR: _, ...colourEnv } = env;
    const args = [...modelArgs(server.baseUrl), '--approval', 'never-ask'];
    const terminal = new TmuxTerminal(spineCommand(BIN, colourEnv, args), {
      cwd: workspace,
      width: 20,
      height: 40,
    });
    try {
      await terminal.waitFor(/›$/);
      const mark = terminal.screen().length;
      terminal.type('go');
      const screen = await terminal.waitFor(/Finished n10\.[\s\S]*›$/, { from: mark });
      const turn = screen.slice(mark);
      const start = turn.indexOf('A heading');
      expect(start, turn).toBeGreaterThanOrEqual(0);
      // From the answer to the status line under it.
      const rendered = turn.slice(start, turn.lastIndexOf('›')).split('\n');
      for (const line of rendered)
        expect(displayWidth(line), `${line}\n${turn}`).toBeLessThanOrEqual(20);
      // Nothing dropped: every marker is there (a table too wide for 20 columns may print raw).
      for (const word of ['n1', 'n2', 'n4', 'n5', 'n6', 'n7', 'out-n8', 'done-n9', 'n10'])
        expect(turn, word).toContain(word);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 120_000);
});
