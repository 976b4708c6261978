// Protected paths are read-only inside the workspace-write shell sandbox (real bwrap, real git).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox, type SandboxBackend } from '../src/index.js';
import { runProcess } from '../src/internal/run-process.js';
import { makeTempDir } from './helpers.js';

let ws: { dir: string; cleanup: () => void };
const backends: SandboxBackend[] = [];

function backendWith(protectedPaths?: readonly string[] | false): SandboxBackend {
  const backend = createBwrapSandbox(protectedPaths === undefined ? {} : { protectedPaths });
  backends.push(backend);
  return backend;
}

async function run(backend: SandboxBackend, command: string): Promise<string> {
  const confined = { command, cwd: ws.dir, workspace: ws.dir, mode: 'workspace-write' as const };
  const result = await runProcess({
    start: () => backend.spawn!(confined, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }),
    file: '',
    args: [],
    cwd: ws.dir,
    timeoutMs: 60_000,
    maxOutputChars: 20_000,
  });
  return result.output;
}

const git = (...args: string[]): string =>
  execFileSync('git', ['-C', ws.dir, ...args], { encoding: 'utf8' });

beforeEach(() => {
  ws = makeTempDir('spine-protected-');
  git('init', '-q');
});

afterEach(() => {
  for (const backend of backends.splice(0)) backend.close?.();
  ws.cleanup();
});

describe('protected paths in the workspace-write sandbox', () => {
  it('refuses writes to .git/config and .git/hooks while git commit still works', async () => {
    const config = readFileSync(join(ws.dir, '.git', 'config'), 'utf8');
    const output = await run(
      backendWith(),
      [
        'printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" >> .git/config',
        'echo "#!/bin/sh" > .git/hooks/pre-commit',
        'rm -rf .git/hooks',
        'mv .git/config .git/config.old',
        'git config core.fsmonitor "touch pwned"',
        'echo content > file.txt && git add file.txt',
        'git -c user.email=a@b -c user.name=a commit -q -m first && echo COMMITTED',
      ].join('; '),
    );
    expect(output).toContain('COMMITTED');
    expect(output).toMatch(/\.git\/config: Read-only file system/);
    expect(output).toMatch(/pre-commit: Read-only file system/);
    expect(readFileSync(join(ws.dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(join(ws.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(git('log', '--format=%s').trim()).toBe('first');
  });

  it('cannot swap .git for a directory it wrote (mv, rm) or create hooks in a missing hooks dir', async () => {
    rmSync(join(ws.dir, '.git', 'hooks'), { recursive: true, force: true });
    const config = readFileSync(join(ws.dir, '.git', 'config'), 'utf8');
    const output = await run(
      backendWith(),
      'mv .git .git-old || echo MOVE-REFUSED; echo x > .git/hooks/post-checkout || echo HOOK-REFUSED; ' +
        'rm -rf .git 2>/dev/null; mkdir -p .git/hooks 2>/dev/null; echo "[core]" > .git/config || echo CONFIG-REFUSED',
    );
    expect(output).toContain('MOVE-REFUSED');
    expect(output).toContain('HOOK-REFUSED');
    expect(output).toContain('CONFIG-REFUSED');
    expect(existsSync(join(ws.dir, '.git-old'))).toBe(false);
    expect(existsSync(join(ws.dir, '.git', 'hooks', 'post-checkout'))).toBe(false);
    // rm -rf may delete what is writable (objects), never the protected files or their directory.
    expect(readFileSync(join(ws.dir, '.git', 'config'), 'utf8')).toBe(config);
  });

  it('removes protected files a command created where none existed (.git/commondir, config.worktree)', async () => {
    const evil = join(ws.dir, 'evil-gitdir');
    const output = await run(
      backendWith(),
      // A complete fake common directory: with it, git reads the config the command wrote.
      `mkdir -p ${evil} && cp -r .git/objects .git/refs ${evil}/ && printf "[core]\\n\\tfsmonitor = touch pwned\\n" > ${evil}/config && ` +
        'echo ../evil-gitdir > .git/commondir && echo "[core]" > .git/config.worktree && echo CREATED',
    );
    expect(output).toContain('CREATED');
    expect(existsSync(join(ws.dir, '.git', 'commondir'))).toBe(false);
    expect(existsSync(join(ws.dir, '.git', 'config.worktree'))).toBe(false);
    expect(git('config', '--list')).not.toContain('fsmonitor');
  });

  it('protects .spine whether or not it exists, and a .git pointer file', async () => {
    const output = await run(
      backendWith(),
      'mkdir -p .spine/hooks && echo x > .spine/config.json || echo SPINE-REFUSED',
    );
    expect(output).toContain('SPINE-REFUSED');
    expect(existsSync(join(ws.dir, '.spine', 'config.json'))).toBe(false);
    mkdirSync(join(ws.dir, '.spine'), { recursive: true });
    writeFileSync(join(ws.dir, '.spine', 'config.json'), '{}');
    const second = await run(
      backendWith(),
      'echo "{\\"hooks\\":1}" > .spine/config.json || echo SPINE-REFUSED',
    );
    expect(second).toContain('SPINE-REFUSED');
    expect(readFileSync(join(ws.dir, '.spine', 'config.json'), 'utf8')).toBe('{}');

    const worktree = makeTempDir('spine-pointer-');
    try {
      writeFileSync(join(worktree.dir, '.git'), `gitdir: ${join(ws.dir, '.git')}\n`);
      const pointer = await runProcess({
        start: () =>
          backendWith().spawn!(
            {
              command: 'echo "gitdir: /tmp/evil" > .git || echo POINTER-REFUSED',
              cwd: worktree.dir,
              workspace: worktree.dir,
              mode: 'workspace-write',
            },
            { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
          ),
        file: '',
        args: [],
        cwd: worktree.dir,
        timeoutMs: 60_000,
        maxOutputChars: 5000,
      });
      expect(pointer.output).toContain('POINTER-REFUSED');
      expect(readFileSync(join(worktree.dir, '.git'), 'utf8')).toContain(ws.dir);
    } finally {
      worktree.cleanup();
    }
  });

  it('protects a repository created by an earlier command in the same runtime (pre-started spare)', async () => {
    rmSync(join(ws.dir, '.git'), { recursive: true, force: true });
    const backend = backendWith();
    expect(await run(backend, 'git init -q . && echo INIT')).toContain('INIT');
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the next spare park
    const output = await run(backend, 'echo "[alias]" >> .git/config || echo CONFIG-REFUSED');
    expect(output).toContain('CONFIG-REFUSED');
  });

  it('follows configuration: no protection with false, a custom list otherwise', async () => {
    expect(await run(backendWith(false), 'echo "# ok" >> .git/config && echo WROTE')).toContain(
      'WROTE',
    );
    mkdirSync(join(ws.dir, 'secrets'));
    const custom = await run(
      backendWith(['secrets/**']),
      'echo x > secrets/a || echo REFUSED; echo "# ok" >> .git/config && echo WROTE',
    );
    expect(custom).toContain('REFUSED');
    expect(custom).toContain('WROTE');
  });

  it('never binds a protected path whose real location is outside the workspace', async () => {
    const outside = makeTempDir('spine-outside-git-');
    try {
      rmSync(join(ws.dir, '.git'), { recursive: true, force: true });
      execFileSync('git', ['init', '-q', outside.dir]);
      symlinkSync(join(outside.dir, '.git'), join(ws.dir, '.git'));
      const output = await run(
        backendWith(),
        'touch .git/objects/x 2>&1 || echo OUTSIDE-READ-ONLY',
      );
      expect(output).toContain('OUTSIDE-READ-ONLY');
      expect(existsSync(join(outside.dir, '.git', 'objects', 'x'))).toBe(false);
    } finally {
      outside.cleanup();
    }
  });
});
