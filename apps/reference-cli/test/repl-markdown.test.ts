// The interactive REPL renders the model's Markdown on a terminal (tmux): finished blocks are
// printed rendered, the block still being streamed is previewed in the live region, rendered as
// it will look, and replaced by its rendering once finished (never left behind in the
// scrollback); piped, the text stays as written with no escape sequence.
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const ANSWER = [
  '## Result',
  '',
  'The **tests** pass. \u001b]0;pwned-title\u0007',
  '',
  '- first point',
  '- [x] done point',
  '',
  '| file | 状態 |',
  '|---|---|',
  '| parse.ts | ok 👍 |',
  '',
].join('\n');

const STALLED = '## Progress\n\nA **partly** written paragraph that goes on and on';

describe('the REPL prints Markdown', () => {
  it('renders finished blocks, previews the pending one, and leaves pipes as written', async () => {
    const server = await createScriptedModelServer({
      replies: [
        // 16 characters a chunk: the heading and the paragraph's start, then silence.
        { stallAfterChunks: 5, text: `${STALLED} until the end.` },
        { text: ANSWER },
        { text: ANSWER },
      ],
    });
    const workspace = exampleWorkspace('spine-repl-md-');
    const { env } = isolatedEnv();
    const { NO_COLOR: _, ...colourEnv } = env;
    const terminal = new TmuxTerminal(spineCommand(BIN, colourEnv, modelArgs(server.baseUrl)), {
      cwd: workspace,
      width: 60,
    });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('report progress');
      // The finished heading is rendered; the paragraph, not finished, is previewed rendered.
      let screen = await terminal.waitFor(/^A partly writ/m);
      expect(screen).toMatch(/^## Progress$/m);
      expect(screen).not.toContain('**partly**');
      terminal.press('C-c');
      screen = await terminal.waitFor(/aborted[\s\S]*\n›$/);
      // At the turn's end the paragraph is rendered for good and the preview is gone.
      expect(screen).toMatch(/^A partly writ\S*$/m);
      expect(screen).not.toContain('**partly**');
      expect(screen.split('A partly writ').length, screen).toBe(2);

      const mark = terminal.screen().length;
      terminal.type('summarise');
      screen = await terminal.waitFor(/completed[\s\S]*\n›$|context [\s\S]*\n›$/, { from: mark });
      const turn = screen.slice(mark);
      expect(turn).toMatch(/^## Result$/m);
      expect(turn).toContain('The tests pass. \\x1b]0;pwned-title\\x07');
      expect(turn).toContain('• first point');
      expect(turn).toContain('• [x] done point');
      expect(turn).toMatch(/^file {5}│ 状態$/m);
      expect(turn).toMatch(/^parse\.ts │ ok 👍$/m);
      expect(turn).not.toContain('**tests**');
      // Every line of the answer exactly once: the preview left nothing behind.
      expect(turn.split('The tests pass.').length).toBe(2);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
    }
    try {
      const piped = await runCli(modelArgs(server.baseUrl), {
        env,
        cwd: workspace,
        input: 'summarise\n',
      });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toContain('The **tests** pass. \\x1b]0;pwned-title\\x07');
      expect(piped.stdout).toContain('| parse.ts | ok 👍 |');
      expect(piped.stdout.includes('\u001b')).toBe(false);
    } finally {
      await server.close();
    }
  }, 180_000);
});
