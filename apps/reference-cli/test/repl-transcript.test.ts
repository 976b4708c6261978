// `/transcript` in a real terminal (tmux): the whole session in a pager on the alternate screen,
// browsed by key; q returns to the inline view with the screen and scrollback unchanged.
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

/** The pane's visible rows (20): what the pager drew, without the normal screen's history. */
const visible = (screen: string): string => screen.split('\n').slice(-20).join('\n');

const LONG = Array.from({ length: 60 }, (_, i) => `Paragraph line ${i + 1}.`).join('\n\n');

describe('/transcript', () => {
  it('opens a pager on the alternate screen and returns with scrollback intact', async () => {
    const server = await createScriptedModelServer({
      replies: [{ text: LONG }, { text: 'Short answer.' }],
    });
    const workspace = exampleWorkspace('spine-transcript-');
    const { env } = isolatedEnv();
    const terminal = new TmuxTerminal(spineCommand(BIN, env, modelArgs(server.baseUrl)), {
      cwd: workspace,
      width: 80,
      height: 20,
    });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('write a lot');
      await terminal.waitFor(/Paragraph line 60\.[\s\S]*\n›$/);
      terminal.type('and a little');
      const before = await terminal.waitFor(/Short answer\.[\s\S]*\n›$/);
      // The scrollback holds the whole first answer.
      expect(before).toContain('Paragraph line 1.');

      terminal.type('/transcript');
      let pager = visible(
        await terminal.waitFor(/transcript of \S+ · lines \d+–\d+ of \d+ · q returns$/),
      );
      // Opened at the end: the last request and answer.
      expect(pager).toContain('Short answer.');
      expect(pager).not.toContain('Paragraph line 1.');
      terminal.type('g', false);
      pager = visible(await terminal.waitFor(/lines 1–19 of/));
      expect(pager).toMatch(/session \S+/);
      expect(pager).toContain('write a lot');
      terminal.type(' ', false);
      // A page is the screen less one row, so the last row stays in view.
      await terminal.waitFor(/lines 19–37 of/);
      terminal.type('q', false);
      const after = await terminal.waitFor(/› \/transcript\n›$/);
      // The inline view is back as it was: every line before, then the command and a new prompt.
      expect(after).toBe(`${before} /transcript\n›`);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
    }
    // Without a terminal it says where the transcript is.
    try {
      const piped = await runCli(modelArgs(server.baseUrl), {
        env,
        cwd: workspace,
        input: '/transcript\n',
      });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toMatch(
        /the transcript pager needs a terminal; spine show \S+ prints it/,
      );
    } finally {
      await server.close();
    }
  }, 180_000);
});
