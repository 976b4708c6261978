// `spine rewind` from outside, through the real binary against the scripted loopback model, on an
// odd workspace: a private file (0600), a non-UTF-8 file name, a nested repository, a person's
// edit between two turns. It names what it cannot restore (dry run and real run), refuses to undo
// the person's edit without --yes (exit 2), restores modes exactly, leaves no `.spine` behind,
// and a deleted checkpoint store is a clear exit 2 that changes nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

const call = (id: string, name: string, args: unknown) => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});
const mode = async (path: string) => ((await fs.stat(path)).mode & 0o7777).toString(8);

describe('spine rewind from outside', () => {
  it('names what it cannot restore, refuses to undo a person, restores modes', async () => {
    const server = await createScriptedModelServer({
      replies: [
        call('t1', 'bash', {
          command:
            'chmod 644 secret.txt && printf agent > new.txt && echo changed > vendor/lib/f.txt',
        }),
        { text: 'turn 1 done' },
        call('t2', 'write', { path: 'other.txt', content: 'turn 2\n' }),
        { text: 'turn 2 done' },
      ],
    });
    try {
      const cwd = join(tempFolder('spine-rewind-cli-'), 'workspace');
      await fs.mkdir(join(cwd, 'vendor', 'lib'), { recursive: true });
      await fs.writeFile(join(cwd, 'secret.txt'), 'private\n', { mode: 0o600 });
      await fs.chmod(join(cwd, 'secret.txt'), 0o600);
      const oddName = Buffer.concat([Buffer.from(`${cwd}/odd-`), Buffer.from([0xff, 0xfe])]);
      await fs.writeFile(oddName, 'latin-1 name\n');
      await fs.writeFile(join(cwd, 'vendor', 'lib', 'f.txt'), 'original\n');
      execFileSync('git', ['init', '-q'], { cwd: join(cwd, 'vendor', 'lib') });
      const { env, sessionDir } = isolatedEnv();
      const common = [...modelArgs(server.baseUrl), '--cwd', cwd, '--approval', 'never-ask'];
      const first = await runCli(['run', ...common, '--json', 'turn one'], { env });
      expect(first.code, first.stderr).toBe(0);
      const id = JSON.parse(first.stdout.split('\n')[0] as string).body.sessionId as string;
      expect(await mode(join(cwd, 'secret.txt'))).toBe('644');
      expect(existsSync(join(cwd, '.spine'))).toBe(false);
      // A person edits the agent's file between the turns; turn 2's checkpoint sees it.
      await fs.writeFile(join(cwd, 'new.txt'), 'a person wrote this');
      const second = await runCli(['resume', id, ...common, 'turn two'], { env });
      expect(second.code, second.stderr).toBe(0);

      const rewind = (...extra: string[]) =>
        runCli(['rewind', id, '--cwd', cwd, '--to', '1', ...extra], { env });
      // Points no session has: turn 0, seq 0, a seq past the end.
      for (const to of ['0', '@0', '@99999']) {
        const none = await runCli(['rewind', id, '--cwd', cwd, '--to', to, '--dry-run'], { env });
        expect(none.code, `${to}: ${none.stdout}${none.stderr}`).toBe(2);
        expect(none.stderr).toContain('--to');
      }
      const dry = await rewind('--dry-run');
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/rewind cannot restore: [\s\S]*vendor\/lib\/ \(nested repository/);

      const refused = await rewind();
      expect(refused.code).toBe(2);
      expect(refused.stdout).toMatch(/rewind cannot restore: [\s\S]*vendor\/lib\//);
      expect(refused.stdout).toMatch(/rewind refused: 1 file\(s\)[\s\S]*new\.txt/);
      expect(await fs.readFile(join(cwd, 'new.txt'), 'utf8')).toBe('a person wrote this');

      const done = await rewind('--yes');
      expect(done.code, done.stdout + done.stderr).toBe(0);
      expect(await mode(join(cwd, 'secret.txt'))).toBe('600');
      expect(existsSync(join(cwd, 'new.txt'))).toBe(false);
      expect(existsSync(join(cwd, 'other.txt'))).toBe(false);
      expect(await fs.readFile(oddName, 'utf8')).toBe('latin-1 name\n');
      expect(existsSync(join(cwd, '.spine'))).toBe(false);

      await fs.rm(join(sessionDir, 'checkpoints'), { recursive: true, force: true });
      await fs.writeFile(join(cwd, 'secret.txt'), 'edited after the store was lost\n');
      const lost = await rewind('--yes');
      expect(lost.code, lost.stdout + lost.stderr).toBe(2);
      expect(lost.stderr).not.toMatch(/bug in spine/);
      expect(lost.stderr).toMatch(/checkpoint store/i);
      expect(await fs.readFile(join(cwd, 'secret.txt'), 'utf8')).toBe(
        'edited after the store was lost\n',
      );
    } finally {
      await server.close();
    }
  }, 180_000);
});
