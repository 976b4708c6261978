// Credential locations are hidden from sandboxed commands (real bubblewrap): the shell tool's
// commands and anything started through `backend.wrap` (MCP stdio servers, hooks) see an empty
// read-only directory or an empty file where keys, tokens and shell histories are, unless the
// sandbox is told to show them. The home directory is a fake one inside the workspace (which the
// sandbox binds back), so without the hiding every file here would be readable.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBashTool,
  createBwrapSandbox,
  createToolRuntime,
  DEFAULT_CREDENTIAL_PATHS,
  type SandboxBackend,
} from '../src/index.js';
import { makeTempDir, runOne } from './helpers.js';

const SECRET = 'SECRET-KEY-MATERIAL';
let ws: { dir: string; cleanup: () => void };
let home: string;
const backends: SandboxBackend[] = [];

/** Writes a secret at `path` under `root`: the file itself, or a `secret` file in a directory. */
function plant(root: string, path: string, as: 'file' | 'directory'): void {
  const target = join(root, path);
  rmSync(target, { recursive: true, force: true });
  if (as === 'directory') {
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'secret'), `${SECRET} ${path}\n`);
  } else {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${SECRET} ${path}\n`);
  }
}

function backend(options: Parameters<typeof createBwrapSandbox>[0] = {}): SandboxBackend {
  const created = createBwrapSandbox({ home, prewarm: false, ...options });
  backends.push(created);
  return created;
}

function bash(sandboxBackend: SandboxBackend, mode: 'read-only' | 'workspace-write') {
  return (command: string) =>
    runOne(
      createToolRuntime({
        cwd: ws.dir,
        sandbox: mode,
        approval: 'never-ask',
        tools: [createBashTool({ cwd: ws.dir, sandboxBackend })],
      }),
      'bash',
      { command, timeoutMs: 30_000 },
    );
}

beforeAll(() => {
  ws = makeTempDir('spine-credentials-');
  home = join(ws.dir, 'home');
  for (const path of ['.ssh', '.aws', '.config/gcloud', '.gnupg']) plant(home, path, 'directory');
  for (const path of ['.netrc', '.docker/config.json', '.npmrc', '.bash_history', '.zsh_history'])
    plant(home, path, 'file');
  writeFileSync(join(home, 'notes.txt'), 'ordinary file\n');
  // A credential directory reached through a symbolic link.
  plant(ws.dir, 'real-kube', 'directory');
  symlinkSync(join(ws.dir, 'real-kube'), join(home, '.kube'));
});

afterAll(() => {
  for (const created of backends) created.close?.();
  ws.cleanup();
});

const readAll = (root: string): string =>
  `cd ${root} && cat .netrc .docker/config.json .npmrc .bash_history .zsh_history .ssh/secret .aws/secret .config/gcloud/secret .gnupg/secret .kube/secret 2>&1; cat notes.txt; ls -A .ssh | wc -l; echo x > .ssh/new 2>&1 || echo 'write refused'`;

describe('credential locations inside the sandbox', () => {
  it('are empty and read-only for shell commands in both sandbox modes', async () => {
    for (const mode of ['workspace-write', 'read-only'] as const) {
      const result = await bash(backend(), mode)(readAll(home));
      expect(result.content, mode).not.toContain(SECRET);
      expect(result.content, mode).toContain('ordinary file\n0\n');
      // Hidden files read as empty (no error: npm and others treat an unreadable rc file as one).
      expect(result.content, mode).not.toMatch(/\.(netrc|npmrc|bash_history|json): /);
      expect(result.content, mode).toContain('Read-only file system');
      expect(result.content, mode).toContain('write refused');
    }
  });

  it('are hidden from programs started through backend.wrap (MCP stdio servers, hooks)', () => {
    const wrapped = backend().wrap({
      command: `cat ${home}/.ssh/secret ${home}/.netrc ${home}/.kube/secret ${ws.dir}/real-kube/secret; echo done`,
      cwd: ws.dir,
      workspace: ws.dir,
      mode: 'workspace-write',
    });
    const run = spawnSync(wrapped.file, wrapped.args, { encoding: 'utf8' });
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.stdout).toContain('done');
  });

  it('hide a credential file that appeared after the next sandbox was started ahead of time', async () => {
    const run = bash(backend({ prewarm: true }), 'workspace-write');
    expect((await run('echo first')).content).toContain('first');
    // The spare is parked once the first command has exited; give it a moment to start.
    await new Promise((resolve) => setTimeout(resolve, 300));
    plant(home, '.pypirc', 'file');
    const result = await run(`cat ${home}/.pypirc; echo read`);
    expect(result.content).toContain('read');
    expect(result.content).not.toContain(SECRET);
  });

  it('are shown when the sandbox is told to (credentialPaths: false)', async () => {
    const result = await bash(
      backend({ credentialPaths: false }),
      'workspace-write',
    )(`cat ${home}/.ssh/secret ${home}/.bash_history`);
    expect(result.content).toContain(`${SECRET} .ssh`);
    expect(result.content).toContain(`${SECRET} .bash_history`);
  });

  it('hides every default location, as a file or as a directory', async () => {
    const fakeHome = join(ws.dir, 'home-property');
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...DEFAULT_CREDENTIAL_PATHS], { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (paths, asDirectory) => {
          rmSync(fakeHome, { recursive: true, force: true });
          for (const path of paths) plant(fakeHome, path, asDirectory ? 'directory' : 'file');
          const result = await bash(
            backend({ home: fakeHome }),
            'read-only',
          )(`grep -r ${SECRET} ${fakeHome} 2>&1; echo checked`);
          expect(result.content).toContain('checked');
          expect(result.content).not.toContain(SECRET);
        },
      ),
      { numRuns: 6 },
    );
  });
});
