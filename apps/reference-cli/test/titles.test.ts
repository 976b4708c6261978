// Session titles in a real terminal (tmux): the first request titles a REPL session at once,
// `/title` changes it, `spine sessions` / `spine show` show the latest, the pane title says
// project and title (OSC 2) until exit, and SPINE_TERMINAL_TITLE=0 leaves the pane title alone.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

async function waitForTitle(terminal: TmuxTerminal, expected: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (terminal.paneTitle() !== expected) {
    if (Date.now() > deadline)
      throw new Error(`pane title "${terminal.paneTitle()}", not "${expected}"`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const BUSY = '\u001b]9;4;3\u0007';
const IDLE = '\u001b]9;4;0\u0007';

/** What the program wrote to the terminal since `record`, once `done` holds for it. */
async function recorded(file: string, done: (bytes: string) => boolean): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const bytes = existsSync(file) ? readFileSync(file, 'latin1') : '';
    if (done(bytes) || Date.now() > deadline) return bytes;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.concurrent('session titles', () => {
  it('titles a REPL session from its first request, /title changes it, the pane title follows', async () => {
    const server = await createScriptedModelServer({
      replies: [{ text: 'Fixed it.' }, { text: 'Second answer.' }],
    });
    const workspace = exampleWorkspace('spine-titles-');
    const project = basename(workspace);
    const { env, sessionDir } = isolatedEnv();
    const terminal = new TmuxTerminal(spineCommand(BIN, env, modelArgs(server.baseUrl)), {
      cwd: workspace,
    });
    let id = '';
    try {
      await terminal.waitFor(/›$/);
      const before = terminal.paneTitle();
      expect(before).toBe(`${project} · spine`);
      const raw = join(tempFolder('spine-titles-raw-'), 'pane.bin');
      terminal.record(raw);
      terminal.type('  Fix the   failing build now');
      await terminal.waitFor(/Fixed it\.[\s\S]*\n›$/);
      await waitForTitle(terminal, `${project} · Fix the failing build now`);
      // Progress (OSC 9;4) while the turn ran, cleared at its end.
      const bytes = await recorded(
        raw,
        (text) => text.lastIndexOf(IDLE) > text.indexOf('Fixed it.') && text.includes('Fixed it.'),
      );
      expect(bytes.indexOf(BUSY)).toBeGreaterThan(-1);
      expect(bytes.indexOf(BUSY)).toBeLessThan(bytes.indexOf('Fixed it.'));
      expect(bytes.lastIndexOf(IDLE)).toBeGreaterThan(bytes.indexOf('Fixed it.'));
      const listed = await runCli(['sessions', '--json'], { env });
      const row = JSON.parse(listed.stdout.trim().split('\n')[0]!) as { id: string; title: string };
      id = row.id;
      expect(row.title).toBe('Fix the failing build now');

      terminal.type('/title Release notes for v2');
      await terminal.waitFor(/title set to Release notes for v2/);
      await waitForTitle(terminal, `${project} · Release notes for v2`);
      terminal.type('and one more');
      await terminal.waitFor(/Second answer\.[\s\S]*\n›$/);
      terminal.type('/sessions');
      await terminal.waitFor(/\* \S+ .*Release notes for v2/);
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/EXITED:130/);
      // The terminal's own title is back (tmux keeps a title stack: the host name).
      expect(terminal.paneTitle()).not.toContain(project);
    } finally {
      terminal.close();
      await server.close();
    }
    // The latest title wins in the list (the index kept it through the session's end).
    const table = await runCli(['sessions'], { env });
    expect(table.stdout).toMatch(new RegExp(`${id} .*Release notes for v2`));
    const log = readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8');
    const titles = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; body: { source?: string } })
      // Typed requests and titles (runtime context is also a user/message, another source).
      .filter(
        (event) =>
          event.type === 'session/title' ||
          (event.type === 'user/message' && event.body.source === 'user'),
      );
    // Recorded at once: before the first request's message.
    expect(titles.map((event) => event.type)).toEqual([
      'session/title',
      'user/message',
      'session/title',
      'user/message',
    ]);
    expect(titles[0]!.body).toEqual({ title: 'Fix the failing build now', source: 'auto' });
    expect(titles[2]!.body).toEqual({ title: 'Release notes for v2', source: 'person' });
    const shown = await runCli(['show', id], { env });
    expect(shown.stdout).toContain('title: Fix the failing build now');
    expect(shown.stdout).toContain('title: Release notes for v2 (set by a person)');
    // A title event is not part of any model request: every recorded request still rebuilds.
    const verified = await runCli(['replay', id, '--verify'], { env });
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
  }, 90_000);

  it('leaves the pane title alone with SPINE_TERMINAL_TITLE=0, and still titles the session', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'Done.' }] });
    const workspace = exampleWorkspace('spine-notitle-');
    const { env } = isolatedEnv({ SPINE_TERMINAL_TITLE: '0' });
    const terminal = new TmuxTerminal(spineCommand(BIN, env, modelArgs(server.baseUrl)), {
      cwd: workspace,
    });
    try {
      await terminal.waitFor(/›$/);
      const before = terminal.paneTitle();
      const raw = join(tempFolder('spine-notitle-raw-'), 'pane.bin');
      terminal.record(raw);
      terminal.type('Write the changelog');
      await terminal.waitFor(/Done\.[\s\S]*\n›$/);
      expect(terminal.paneTitle()).toBe(before);
      // Neither a title nor progress was written.
      const bytes = await recorded(raw, (text) => text.includes('Done.'));
      expect(bytes).toContain('Done.');
      expect(bytes).not.toContain('\u001b]2;');
      expect(bytes).not.toContain('\u001b]9;4');
      expect(before).not.toContain(basename(workspace));
      terminal.press('C-c');
      terminal.press('C-c');
      await terminal.waitFor(/EXITED:130/);
    } finally {
      terminal.close();
      await server.close();
    }
    const listed = await runCli(['sessions', '--json'], { env });
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ title: 'Write the changelog' });
  }, 60_000);
});
