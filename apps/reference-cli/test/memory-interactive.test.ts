import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

describe('memory in the interactive CLI', () => {
  it('asks the person before writing user memory and lists both files with /memory', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'remember', arguments: '{"fact":"Prefers tabs","scope":"user"}' },
          ],
        },
        { text: 'Saved for next time.' },
      ],
    });
    const workspace = exampleWorkspace('spine-memory-tty-');
    mkdirSync(join(workspace, '.spine'));
    writeFileSync(join(workspace, '.spine', 'memory.md'), '- Deploys go through CI\n');
    const { env, root } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'auto-edit',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('remember that I prefer tabs');
      await terminal.waitFor(/allow remember.*\n.*reason: writes user memory.*\n.*\[o\]nce/);
      terminal.type('o');
      await terminal.waitFor(/Saved for next time\.[\s\S]*context [^›]*\n›$/);
      const userFile = join(root, 'config', 'memory.md');
      expect(readFileSync(userFile, 'utf8')).toContain('- Prefers tabs <!-- spine: session ');
      terminal.type('/memory');
      const shown = await terminal.waitFor(/apply from the next session\.\n›$/);
      expect(shown).toMatch(
        /user memory: .*memory\.md \(1 fact\)\n +- Prefers tabs +\[session \S+, \d{4}-\d{2}-\d{2}\]/,
      );
      expect(shown).toMatch(
        /project memory: .*\.spine\/memory\.md \(1 fact\)\n +- Deploys go through CI +\[hand-written\]/,
      );
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 60_000);
});
