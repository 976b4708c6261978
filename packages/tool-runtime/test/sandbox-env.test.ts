// Commands get a clean environment and never read shell startup files: SHLVL unset (Docker CMD,
// systemd, cron) and socket stdio make bash -c read ~/.bashrc unless told not to.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBashTool,
  createBwrapSandbox,
  createShellEnv,
  createToolRuntime,
  type SandboxBackend,
} from '../src/index.js';
import { makeTempDir, runOne } from './helpers.js';

const MARKER = 'SPINE-STARTUP-MARKER';
let home: { dir: string; cleanup: () => void };
let workspace: { dir: string; cleanup: () => void };
let backend: SandboxBackend;

beforeAll(() => {
  home = makeTempDir('spine-home-');
  workspace = makeTempDir('spine-env-ws-');
  for (const file of ['.bashrc', '.bash_profile', '.profile', '.bash_login', 'evil-env.sh'])
    writeFileSync(join(home.dir, file), `echo ${MARKER}-${file}\n`);
  mkdirSync(join(home.dir, '.config'), { recursive: true });
  backend = createBwrapSandbox();
});

afterAll(() => {
  backend.close?.();
  home.cleanup();
  workspace.cleanup();
});

// The host environment a careless process would pass on: no SHLVL, startup hooks, credentials.
function hostEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home.dir,
    LANG: 'C.UTF-8',
    BASH_ENV: join(home.dir, 'evil-env.sh'),
    ENV: join(home.dir, 'evil-env.sh'),
    SPINE_E2E_KEY: 'canary-api-key',
    AWS_ACCESS_KEY_ID: 'canary-aws',
    OPENAI_KEY: 'canary-openai',
    GH_PAT: 'canary-gh',
    DATABASE_URL: 'postgres://u:canary-db@h/x',
    'BASH_FUNC_echo%%': `() { builtin echo ${MARKER}-function; }`,
  };
  delete env.SHLVL;
  return env;
}

describe('the environment of bash commands', () => {
  it.each(['workspace-write', 'read-only', 'danger-full-access'] as const)(
    '%s: no startup file runs and no credential reaches the command',
    async (sandbox) => {
      const host = hostEnv();
      const env = createShellEnv(host, { inherit: 'all', neverPass: ['SPINE_E2E_KEY'] });
      const runtime = createToolRuntime({
        cwd: workspace.dir,
        sandbox,
        approval: 'never-ask',
        tools: [createBashTool({ cwd: workspace.dir, sandboxBackend: backend, env })],
      });
      const result = await runOne(runtime, 'bash', { command: 'echo ran; env; bash -c true' });
      expect(result.isError).toBe(false);
      expect(result.content.startsWith('ran\n')).toBe(true);
      expect(result.content).not.toContain(MARKER);
      expect(result.content).not.toContain('canary');
      expect(result.content).toContain(`HOME=${home.dir}`);
      expect(result.content).not.toMatch(/^SHLVL=0$/m);
    },
  );

  it('the default environment is the core set only', async () => {
    const runtime = createToolRuntime({
      cwd: workspace.dir,
      sandbox: 'workspace-write',
      approval: 'never-ask',
      tools: [createBashTool({ cwd: workspace.dir, sandboxBackend: backend })],
    });
    const result = await runOne(runtime, 'bash', {
      command: 'env -0 | tr "\\0" "\\n" | cut -d= -f1',
    });
    const names = result.content.trim().split('\n');
    const core = /^(PATH|HOME|USER|LANG|LC_\w+|TERM|TZ|TMPDIR|SHELL|PWD|SHLVL|_|OLDPWD)$/;
    for (const name of names) expect(name, name).toMatch(core);
  });
});
