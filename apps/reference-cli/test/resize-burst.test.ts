// The real CLI in a real terminal (tmux) resized back to back, ten times in about half a second,
// while a tool keeps printing (its last lines are in the live region): as when a window is
// dragged. tmux reflows its screen at once but tells the program late (and an intermediate size
// first), so a draw made meanwhile counts rows at the wrong width. The live region waits for the
// size to settle and is drawn once: no stale live row is left anywhere (screen or scrollback),
// no finished line is lost, and nothing clears the screen or the scrollback.
// The tool starts printing after the first resize: a draw still in the pty when the terminal
// reflows for the very first one is out of reach of an inline renderer that does not ask the
// terminal for its cursor position.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

// Three lines, then (once the test creates `burst`) a line every 30 ms until it creates `go`; each
// line wider than most of the sizes below.
const COMMAND = [
  'n=0; tick() { n=$((n+1)); echo "tick-$n $(printf %0100d 0)"; }; tick; tick; tick',
  'until [ -f go ]; do if [ -f burst ]; then tick; sleep 0.03; else sleep 0.05; fi; done',
  'echo tick-end',
].join('; ');

const INTRO = '## Plan m1\n\nA paragraph m2.\n\n- item m3\n- item m4\n';

// Widths and heights: every height keeps the reflowed live region on the screen (rows pushed
// into the scrollback are out of any inline renderer's reach).
const SIZES = [
  [60, 30],
  [140, 34],
  [50, 28],
  [40, 30],
  [30, 36],
  [120, 30],
  [35, 32],
  [70, 40],
  [45, 30],
  [90, 30],
] as const;

/** How often `word` occurs in `text`. */
function count(text: string, word: string): number {
  return text.split(word).length - 1;
}

/** Live-output rows (`│ tick-<n>`) shown more than once. */
function repeated(screen: string): string[] {
  const seen = new Map<string, number>();
  for (const match of screen.matchAll(/│ (tick-\d+)\b/g))
    seen.set(match[1] as string, (seen.get(match[1] as string) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([tick]) => tick);
}

describe('resizing the terminal back to back while a tool prints', () => {
  it('leaves no stale live row and loses no finished line', async () => {
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
    const workspace = exampleWorkspace('spine-resize-burst-');
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
      await terminal.waitFor(/│ tick-3 0+…?$/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const [index, [width, height]] of SIZES.entries()) {
        terminal.resize(width, height);
        if (index === 0) writeFileSync(join(workspace, 'burst'), '');
        await new Promise((resolve) => setTimeout(resolve, 15 + Math.random() * 40));
      }
      // Settled: the live region once, at the bottom, its rows cut for the final width.
      const settled = await terminal.waitFor(/(?:│ tick-\d+ 0{73}…\n\s*){4}│ tick-\d+ 0{73}…$/, {
        timeoutMs: 10_000,
      });
      const rows = terminal.rawScreen();
      expect(count(rows, '│ tick-'), rows).toBe(5);
      expect(repeated(settled)).toEqual([]);
      writeFileSync(join(workspace, 'go'), '');
      const screen = await terminal.waitFor(/All done m5\.[\s\S]*›$/);
      // Every finished line once; the call's last lines once each, after one folded count.
      for (const marker of ['Plan m1', 'paragraph m2', 'item m3', 'item m4', 'All done m5'])
        expect(count(screen, marker), `${marker}\n${screen}`).toBe(1);
      expect(count(screen, '→ bash command=')).toBe(1);
      // The answer's blocks and the tool lines are set apart by a blank line.
      expect(screen).toMatch(/item m4\n\n\s*→ bash command=/);
      expect(screen).toMatch(/✓ bash [^\n]*\n\nAll done m5\./);
      expect(screen).toMatch(/… [\d,]+ earlier lines/);
      expect(screen).toMatch(/│ tick-end\n\s*✓ bash /);
      expect(repeated(screen), screen).toEqual([]);
      // No screen clear, no scrollback clear, no scroll region, ever.
      const bytes = readFileSync(recording, 'latin1');
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
