// A session rewound between turns reruns exactly: the rerun repeats the recorded rewind before
// the turn that followed it, so that turn's tools see the workspace they saw when recorded
// (here, turn 3 creates a file the rewind had removed; without the rewind it would exist and
// the write would be refused as never read).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const write = (id: string, path: string, content: string) => ({
  toolCalls: [{ id, name: 'write', arguments: JSON.stringify({ path, content }) }],
});

describe('rerun of a rewound session', () => {
  it('repeats the recorded rewind and gets identical tool results', async () => {
    const server = await createScriptedModelServer({
      replies: [
        write('w1', 'notes/a.txt', 'a\n'),
        { text: 'a written' },
        write('w2', 'notes/b.txt', 'b\n'),
        { text: 'b written' },
        write('w3', 'notes/b.txt', 'b again\n'),
        { text: 'b written again' },
      ],
    });
    try {
      const cwd = exampleWorkspace('spine-rewind-rerun-');
      const { env } = isolatedEnv();
      const common = [...modelArgs(server.baseUrl), '--cwd', cwd, '--approval', 'never-ask'];
      const first = await runCli(['run', ...common, '--json', 'write a'], { env });
      expect(first.code, first.stderr).toBe(0);
      const id = JSON.parse(first.stdout.split('\n')[0] as string).body.sessionId as string;
      expect((await runCli(['resume', id, ...common, 'write b'], { env })).code).toBe(0);
      const undo = await runCli(['rewind', id, '--cwd', cwd, '--to', '2'], { env });
      expect(undo.code, undo.stdout + undo.stderr).toBe(0);
      expect(existsSync(join(cwd, 'notes', 'b.txt'))).toBe(false);
      expect((await runCli(['resume', id, ...common, 'write b again'], { env })).code).toBe(0);

      // Back to the start, then rerun the whole session against the current code.
      const start = await runCli(['rewind', id, '--cwd', cwd, '--to', '1', '--yes'], { env });
      expect(start.code, start.stdout + start.stderr).toBe(0);
      expect(existsSync(join(cwd, 'notes'))).toBe(false);
      const rerun = await runCli(['rerun', id, '--cwd', cwd], { env });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(rerun.stdout).toMatch(/tool results identical: 3\/3/);
      const replayed = await runCli(['replay', id, '--cwd', cwd, '--verify'], { env });
      expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
    } finally {
      await server.close();
    }
  }, 240_000);
});
