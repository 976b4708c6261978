import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

describe('spine run on a terminal', () => {
  it('asks approval on the terminal and exits 4 when the person denies', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_1', name: 'bash', arguments: '{"command":"touch made-by-agent"}' },
          ],
        },
        { text: 'Understood, I will not run it.' },
      ],
    });
    const workspace = exampleWorkspace('spine-runtty-');
    const { env } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      'run',
      ...modelArgs(server.baseUrl),
      '--approval',
      'ask',
      'make a file',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/allow bash.*\n.*reason: .*\n.*\[d\]eny ›/);
      terminal.type('d');
      const screen = await terminal.waitFor(/EXITED:\d+/);
      expect(screen).toContain('Understood, I will not run it.');
      expect(screen).toContain('EXITED:4');
      expect(existsSync(join(workspace, 'made-by-agent'))).toBe(false);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 150_000);
});
