// The real CLI in a real terminal (tmux) whose pane is resized while a tool runs: narrower, wider,
// then narrower twice. Only the live region is redrawn: every finished line (the model's
// Markdown before the call, the call's header, the final answer) is in the scrollback exactly once,
// no live-region row is left behind, and the program never clears the screen or the scrollback.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const COMMAND = [
  // The lines are built by the shell, so the command shown in the call's header has none of them.
  // Wide lines: the live region's rows are rewrapped by the terminal when the pane narrows.
  'for i in 1 2; do echo "live-$i-x $(printf %0120d 0)"; done',
  // Waits for the test to finish resizing while the output is in the live region.
  'until [ -f go ]; do sleep 0.1; done',
  'echo "live-$((1 + 2))-x"',
].join('; ');

const INTRO = [
  '## Plan m1',
  '',
  `A paragraph m2 that is long enough to wrap in a narrow pane ${'word '.repeat(20)}end.`,
  '',
  '- item m3',
  '- item m4',
  '',
].join('\n');

/** How often `word` occurs in `text`. */
function count(text: string, word: string): number {
  return text.split(word).length - 1;
}

describe('resizing the terminal while a tool runs', () => {
  it('redraws only the live region and keeps every finished line once', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          text: INTRO,
          toolCalls: [
            { id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: COMMAND }) },
          ],
        },
        { text: 'All done m5.' },
      ],
    });
    const workspace = exampleWorkspace('spine-resize-');
    const { env } = isolatedEnv();
    const args = [...modelArgs(server.baseUrl), '--approval', 'never-ask'];
    const terminal = new TmuxTerminal(spineCommand(BIN, env, args), {
      cwd: workspace,
      width: 100,
      height: 30,
    });
    const recording = join(workspace, '..', 'terminal.bytes');
    try {
      await terminal.waitFor(/›$/);
      terminal.record(recording);
      terminal.type('plan it');
      await terminal.waitFor(/│ live-1-x 0+…?\n\s*│ live-2-x 0+…?$/);
      for (const [width, height] of [
        [60, 30],
        [140, 30],
        [50, 24],
        [40, 20],
      ] as const) {
        terminal.resize(width, height);
        // The live region is redrawn at the new width (each line cut to fit it: `width - 17`
        // zeros and `…`, or all 120), at the bottom, once. Waiting for that redraw before the next
        // resize keeps the test deterministic: a resize that lands while the program is still
        // drawing for the previous width is a race no inline renderer can win (see
        // packages/tui/test/stream-scrollback.test.ts for resizes back to back).
        const zeros = width - 17 >= 120 ? '0{120}' : `0{${width - 17}}…`;
        const drawn = new RegExp(`│ live-1-x ${zeros}\\n\\s*│ live-2-x ${zeros}$`);
        const screen = await terminal.waitFor(drawn);
        expect(count(screen, '│ live-1-x'), screen).toBe(1);
      }
      writeFileSync(join(workspace, 'go'), '');
      const screen = await terminal.waitFor(/All done m5\.[\s\S]*›$/);
      // Every finished line once (capture-pane joins the rows a narrow pane wrapped).
      for (const marker of ['Plan m1', 'paragraph m2', 'item m3', 'item m4', 'All done m5'])
        expect(count(screen, marker), marker).toBe(1);
      expect(count(screen, '→ bash command=')).toBe(1);
      expect(screen).toMatch(/✓ bash /);
      // The live lines are gone from the live region; the finished call prints its output once.
      for (const line of ['live-1-x', 'live-2-x', 'live-3-x'])
        expect(count(screen, `│ ${line}`), `${line}\n${screen}`).toBe(1);
      // Flicker budget: no screen clear, no scrollback clear, no scroll region, ever.
      const bytes = readFileSync(recording, 'latin1');
      expect(bytes.length).toBeGreaterThan(0);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: counting escape sequences is the point.
      expect(bytes.match(/\x1b\[[23]J|\x1b\[\d*;\d*r|\x1bc/g) ?? []).toEqual([]);
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/EXITED:130/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 120_000);
});
