// /rewind and /undo in a real terminal (tmux): the picker lists the turns that changed files with
// their first line and files, /undo puts the last one back, and a file changed outside Spine is
// only overwritten after --yes.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const write = (id: string, path: string, content: string) => ({
  toolCalls: [{ id, name: 'write', arguments: JSON.stringify({ path, content }) }],
});

describe('/rewind and /undo', () => {
  it('lists turns, undoes the last, and asks before overwriting an outside change', async () => {
    const server = await createScriptedModelServer({
      replies: [
        write('w1', 'notes/x.txt', 'one\n'),
        { text: 'Wrote x.' },
        write('w2', 'notes/y.txt', 'two\n'),
        { text: 'Wrote y.' },
      ],
    });
    const workspace = exampleWorkspace('spine-rewind-repl-');
    const { env } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'never-ask',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('create the x note');
      await terminal.waitFor(/Wrote x\.[\s\S]*\n›$/);
      terminal.type('and the y note');
      await terminal.waitFor(/Wrote y\.[\s\S]*\n›$/);
      terminal.type('/rewind');
      const listed = await terminal.waitFor(/\/undo: the last one/);
      expect(listed).toMatch(/ 1 +create the x note +notes\/x\.txt/);
      expect(listed).toMatch(/ 2 +and the y note +notes\/y\.txt/);
      terminal.type('/undo');
      await terminal.waitFor(/rewound the workspace to checkpoint \w+ \(seq \d+\): 1 file/);
      expect(existsSync(join(workspace, 'notes', 'y.txt'))).toBe(false);
      expect(readFileSync(join(workspace, 'notes', 'x.txt'), 'utf8')).toBe('one\n');

      writeFileSync(join(workspace, 'notes', 'x.txt'), 'edited by a person\n');
      terminal.type('/rewind 1');
      await terminal.waitFor(/rewind refused: 1 file\(s\) changed outside Spine[\s\S]*--yes/);
      expect(readFileSync(join(workspace, 'notes', 'x.txt'), 'utf8')).toBe('edited by a person\n');
      terminal.type('/rewind 1 --yes');
      await terminal.waitFor(
        /rewound the workspace to checkpoint \w+ \(seq \d+\): 1 file[\s\S]*›$/,
      );
      expect(existsSync(join(workspace, 'notes', 'x.txt'))).toBe(false);
      // The conversation too: the REPL continues in a fork made before turn 2.
      terminal.type('/rewind 2 --conversation');
      await terminal.waitFor(/conversation forked at seq \d+ into \d{8}-\d{6}-[0-9a-f]{6}/);
      expect(readFileSync(join(workspace, 'notes', 'x.txt'), 'utf8')).toBe('one\n');
      terminal.type('/quit');
    } finally {
      terminal.close();
      await server.close();
    }
  }, 180_000);

  it('rolls the cut-off step back when a turn is aborted and rewind.onAbort is always', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            {
              id: 'b1',
              name: 'bash',
              arguments: JSON.stringify({ command: 'echo half > notes-z.txt && sleep 60' }),
            },
          ],
        },
        { text: 'never reached' },
      ],
    });
    const workspace = exampleWorkspace('spine-rewind-abort-');
    mkdirSync(join(workspace, '.spine'), { recursive: true });
    writeFileSync(
      join(workspace, '.spine', 'config.json'),
      JSON.stringify({ rewind: { onAbort: 'always' } }),
    );
    const { env } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'never-ask',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('start the long job');
      const deadline = Date.now() + 60_000;
      while (!existsSync(join(workspace, 'notes-z.txt')) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(existsSync(join(workspace, 'notes-z.txt'))).toBe(true);
      terminal.press('C-c');
      await terminal.waitFor(/rewound the workspace to checkpoint \w+ \(seq \d+\): 1 file/);
      expect(existsSync(join(workspace, 'notes-z.txt'))).toBe(false);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 180_000);
});
