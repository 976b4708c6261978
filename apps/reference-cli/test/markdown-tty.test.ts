// The answer of `spine run` is rendered as Markdown on a terminal (tmux) and left as written when
// stdout is a pipe; escape sequences in it stay visible text either way.
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

describe('spine run prints Markdown', () => {
  it('renders it on a terminal and leaves it as written in a pipe', async () => {
    const server = await createScriptedModelServer({
      replies: [{ text: ANSWER }, { text: ANSWER }],
    });
    const workspace = exampleWorkspace('spine-md-');
    const { env } = isolatedEnv();
    const args = ['run', ...modelArgs(server.baseUrl), 'summarise'];
    // Colour on in the terminal (isolatedEnv sets NO_COLOR): bullets instead of dashes.
    const { NO_COLOR: _, ...colourEnv } = env;
    const terminal = new TmuxTerminal(spineCommand(BIN, colourEnv, args), {
      cwd: workspace,
      width: 60,
    });
    try {
      const screen = await terminal.waitFor(/EXITED:\d+/);
      expect(screen).toContain('EXITED:0');
      expect(screen).toMatch(/^## Result$/m);
      expect(screen).toContain('The tests pass. \\x1b]0;pwned-title\\x07');
      expect(screen).toContain('• first point');
      expect(screen).toContain('• [x] done point');
      expect(screen).toMatch(/^file {5}│ 状態$/m);
      expect(screen).toMatch(/^parse\.ts │ ok 👍$/m);
      expect(screen).not.toContain('**tests**');
    } finally {
      terminal.close();
    }
    try {
      const piped = await runCli(args, { env, cwd: workspace });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toContain('The **tests** pass. \\x1b]0;pwned-title\\x07');
      expect(piped.stdout).toContain('| parse.ts | ok 👍 |');
      expect(piped.stdout.includes('\u001b')).toBe(false);
    } finally {
      await server.close();
    }
  }, 120_000);
});
