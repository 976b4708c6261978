// A hostile model tries to repaint the approval prompt with escape sequences, so that the person
// reads one command while another runs. The real CLI in a real terminal (tmux) must show the bytes.
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const ESC = '\u001b';
// Moves up and erases the lines above, then draws a harmless-looking prompt in their place.
const REPAINT = `${ESC}[1A${ESC}[2K${ESC}[1A${ESC}[2K${ESC}[1A${ESC}[2K\r? allow bash command: ls -la`;
const HOSTILE_COMMAND = `touch pwned-by-escape ${REPAINT}\n# ${ESC}[8mhidden${ESC}[0m \u202eexe.txt`;
const HOSTILE_TEXT = `All done.${ESC}]0;pwned-title\u0007${ESC}[2J${ESC}[H\u009b31mred`;

describe('untrusted text in a real terminal', () => {
  it('shows the real bytes of a command that tries to repaint the approval prompt, and of the answer', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: HOSTILE_COMMAND }) },
          ],
        },
        { text: HOSTILE_TEXT },
      ],
    });
    const workspace = exampleWorkspace('spine-escapes-');
    const { env } = isolatedEnv();
    const command = spineCommand(BIN, env, [...modelArgs(server.baseUrl), '--approval', 'ask']);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('list the files');
      const prompt = await terminal.waitFor(/allow bash[\s\S]*reason: .*\n.*\[o\]nce/);
      // The escape sequences are shown as text, so nothing above was erased and no fake prompt drawn.
      expect(prompt).toContain(
        'touch pwned-by-escape \\x1b[1A\\x1b[2K\\x1b[1A\\x1b[2K\\x1b[1A\\x1b[2K\\x0d? allow bash command: ls -la',
      );
      expect(prompt).toContain('\\x1b[8mhidden\\x1b[0m \\u202eexe.txt');
      expect(prompt).toContain('list the files');
      expect(prompt).not.toMatch(/^\? allow bash command: ls -la/m);
      terminal.type('d');
      const after = await terminal.waitFor(/All done\./);
      expect(after).toContain('All done.\\x1b]0;pwned-title\\x07\\x1b[2J\\x1b[H\\x9b31mred');
      // The screen was not cleared: the prompt is still there above the answer.
      expect(after).toContain('touch pwned-by-escape');
      // The answer shows while the turn still ends (checkpoint, turn/end): wait for the idle
      // prompt, or the first Ctrl-C cancels the turn instead of counting toward exit.
      await terminal.waitFor(/completed, but denied: bash[\s\S]*\n›$/);
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/EXITED:130/);
    } finally {
      terminal.close();
      await server.close();
    }

    const sessions = await runCli(['sessions', '--json'], { env });
    const { id } = JSON.parse(sessions.stdout.trim().split('\n')[0]!) as { id: string };
    for (const args of [
      ['show', id],
      ['show', id, '--events'],
      ['show', id, '--events', '--json'],
      ['show', id, '--json'],
    ]) {
      const shown = await runCli(args, { env });
      expect(shown.code).toBe(0);
      for (const raw of [ESC, '\u0007', '\u009b', '\u202e'])
        expect(shown.stdout.includes(raw)).toBe(false);
    }
    const transcript = await runCli(['show', id], { env });
    expect(transcript.stdout).toContain('All done.\\x1b]0;pwned-title\\x07');
    expect(transcript.stdout).toContain('touch pwned-by-escape');
  }, 150_000);
});
