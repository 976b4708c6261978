import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskRecord } from '@spine/store-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { continueText, prepareWorkspace } from './run-task.js';
import { isGitUrl } from './submit.js';

const root = mkdtempSync(join(tmpdir(), 'spine-run-task-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const task = (workspace: string, id = 'task-1'): TaskRecord => ({
  id,
  sessionId: `s-${id}`,
  spec: { prompt: 'do it', workspace },
  status: 'running',
  attempts: 1,
  token: 1,
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

describe('the workspace of a task', () => {
  it('tells git URLs from paths', () => {
    for (const url of [
      'https://github.com/a/b.git',
      'file:///srv/repo',
      'git@github.com:a/b.git',
      'ssh://git@h/r',
    ]) {
      expect(isGitUrl(url), url).toBe(true);
    }
    for (const path of ['/srv/repo', 'relative/dir', './x', 'C-drive'])
      expect(isGitUrl(path), path).toBe(false);
  });

  it('clones a git URL once per task into the work folder, and runs a path in place', async () => {
    const origin = join(root, 'origin');
    mkdirSync(origin);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: origin, stdio: 'pipe' });
    git('init', '--quiet');
    writeFileSync(join(origin, 'README.md'), 'hello\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'init');
    const workDir = join(root, 'work');
    const cloned = await prepareWorkspace(task(`file://${origin}`), workDir);
    expect(cloned).toBe(join(workDir, 'task-1'));
    expect(readFileSync(join(cloned, 'README.md'), 'utf8')).toBe('hello\n');
    // A task taken over on the same machine continues in the same clone.
    writeFileSync(join(cloned, 'work.txt'), 'in progress');
    expect(await prepareWorkspace(task(`file://${origin}`), workDir)).toBe(cloned);
    expect(existsSync(join(cloned, 'work.txt'))).toBe(true);
    expect(await prepareWorkspace(task(origin), workDir)).toBe(origin);
  });

  it('refuses a path that is not a folder on this worker', async () => {
    await expect(prepareWorkspace(task(join(root, 'missing')), root)).rejects.toThrow(
      /is not a folder on this worker/,
    );
  });

  it('asks a continued task to check what was done before finishing it', () => {
    expect(continueText('fix the build')).toMatch(
      /stopped before it finished[\s\S]*fix the build$/,
    );
  });
});
