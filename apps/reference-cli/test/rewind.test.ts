// Rewind end to end through the CLI: a real session (loopback model, real file tools, real shell
// in the sandbox) records workspace checkpoints; `spine rewind` restores any turn byte- and
// mode-identically, refuses to overwrite a file changed outside Spine without --yes, forks the
// conversation, and the session still replays and reruns with --verify.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

/** path → "mode sha256" (links: their target) of every file, `.git` and node_modules left out. */
async function manifest(root: string, relative = ''): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  for (const entry of await fs.readdir(join(root, relative), { withFileTypes: true })) {
    const path = relative ? `${relative}/${entry.name}` : entry.name;
    if (path === '.git' || path === 'node_modules') continue;
    const absolute = join(root, path);
    const stats = await fs.lstat(absolute);
    if (stats.isDirectory()) Object.assign(entries, await manifest(root, path));
    else if (stats.isSymbolicLink()) entries[path] = `link ${await fs.readlink(absolute)}`;
    else {
      const hash = createHash('sha256')
        .update(await fs.readFile(absolute))
        .digest('hex');
      entries[path] = `${(stats.mode & 0o777).toString(8)} ${hash}`;
    }
  }
  return entries;
}

const call = (id: string, name: string, args: unknown) => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

describe('spine rewind', () => {
  it('restores each turn, asks before overwriting outside changes, and replays', async () => {
    const server = await createScriptedModelServer({
      replies: [
        call('t1', 'write', { path: 'notes/a.txt', content: 'first\n' }),
        { text: 'wrote a' },
        call('t2', 'bash', {
          command:
            'mv notes/a.txt notes/b.txt && chmod +x notes/b.txt && printf "\\000\\001bin" > c.bin && ln -s notes/b.txt link && rm -f README.md',
        }),
        { text: 'shuffled' },
        call('t3r', 'read', { path: 'notes/b.txt' }),
        call('t3e', 'edit', {
          path: 'notes/b.txt',
          edits: [{ oldText: 'first', newText: 'third' }],
        }),
        { text: 'edited' },
      ],
    });
    try {
      const cwd = exampleWorkspace('spine-rewind-');
      await fs.mkdir(join(cwd, 'node_modules', 'dep'), { recursive: true });
      await fs.writeFile(join(cwd, '.gitignore'), 'node_modules/\n');
      await fs.writeFile(join(cwd, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
      const { env } = isolatedEnv();
      const common = [...modelArgs(server.baseUrl), '--cwd', cwd, '--approval', 'never-ask'];
      const states = [await manifest(cwd)];
      const first = await runCli(['run', ...common, '--json', 'write a'], { env });
      expect(first.code, first.stderr).toBe(0);
      const id = JSON.parse(first.stdout.split('\n')[0] as string).body.sessionId as string;
      states.push(await manifest(cwd));
      for (const task of ['shuffle', 'edit b']) {
        const next = await runCli(['resume', id, ...common, task], { env });
        expect(next.code, next.stderr).toBe(0);
        states.push(await manifest(cwd));
      }
      expect(states[3]?.['notes/b.txt']).toMatch(/^755 /);
      const modules = await manifest(join(cwd, 'node_modules'));

      const dry = await runCli(['rewind', id, '--cwd', cwd, '--to', '2', '--dry-run'], { env });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/would change/);
      expect(dry.stdout).toContain('-third');
      expect(await manifest(cwd)).toEqual(states[3]);

      // Turn n's checkpoint holds the workspace as it was before turn n.
      for (const turn of [2, 1, 3, 2]) {
        const rewound = await runCli(['rewind', id, '--cwd', cwd, '--to', String(turn)], { env });
        expect(rewound.code, rewound.stdout + rewound.stderr).toBe(0);
        expect(await manifest(cwd), `turn ${turn}`).toEqual(states[turn - 1]);
        expect(await manifest(join(cwd, 'node_modules'))).toEqual(modules);
      }

      // A change made outside Spine is not overwritten without confirmation.
      await fs.writeFile(join(cwd, 'notes', 'a.txt'), 'edited by a person\n');
      const refused = await runCli(['rewind', id, '--cwd', cwd, '--to', '3'], { env });
      expect(refused.code).toBe(2);
      expect(refused.stdout).toMatch(/rewind refused: 1 file\(s\) changed outside Spine/);
      expect(await fs.readFile(join(cwd, 'notes', 'a.txt'), 'utf8')).toBe('edited by a person\n');
      const confirmed = await runCli(
        ['rewind', id, '--cwd', cwd, '--to', '3', '--yes', '--conversation'],
        { env },
      );
      expect(confirmed.code, confirmed.stderr).toBe(0);
      expect(await manifest(cwd)).toEqual(states[2]);
      const forkId = confirmed.stdout.trim().split('\n').at(-1) as string;

      const shown = await runCli(['export', id, '--cwd', cwd, '--format', 'json'], { env });
      const restored = (
        JSON.parse(shown.stdout) as {
          events: Array<{ type: string; body: { overwritten?: string[]; conversation?: string } }>;
        }
      ).events.filter((event) => event.type === 'workspace/restored');
      expect(restored).toHaveLength(5);
      expect(restored.map((event) => event.body)).not.toContainEqual({});
      expect(restored.at(-1)?.body).toMatchObject({
        overwritten: ['notes/a.txt'],
        conversation: forkId,
      });

      const show = await runCli(['show', id, '--cwd', cwd], { env });
      expect(show.stdout).toMatch(
        /\[workspace rewound to checkpoint \w{12}: \d+ file\(s\), 1 changed outside Spine overwritten\]/,
      );
      for (const session of [id, forkId]) {
        const replayed = await runCli(['replay', session, '--cwd', cwd, '--verify'], { env });
        expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
      }
      // A rerun re-executes the tools, so it starts from the workspace as it was before turn 1.
      const start = await runCli(['rewind', id, '--cwd', cwd, '--to', '1', '--yes'], { env });
      expect(start.code, start.stderr).toBe(0);
      expect(await manifest(cwd)).toEqual(states[0]);
      const rerun = await runCli(['rerun', id, '--cwd', cwd], { env });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    } finally {
      await server.close();
    }
  }, 240_000);
});
