import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDefinition, ToolExecutionContext, ToolHookCall } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config/schema.js';
import { createShellHooks } from './hooks-shell.js';

function context(cwd: string): ToolExecutionContext {
  return { callId: 'c1', signal: new AbortController().signal, cwd, sandbox: 'workspace-write' };
}

function call(toolName: string): ToolHookCall {
  return {
    toolCallId: 'c1',
    toolName,
    args: { command: 'rm -rf /' },
    tool: {} as ToolDefinition<never>,
  };
}

describe('createShellHooks', () => {
  it('blocks a tool call when a pre-tool-use command exits 2, with its stderr as the reason', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'spine-hooks-'));
    const hooks = {
      ...defaultConfig({}).hooks,
      'pre-tool-use': [
        { command: 'cat > seen.json; echo "no shell today" >&2; exit 2', matcher: 'shell' },
      ],
    };
    const shell = createShellHooks({ cwd, hooks, sessionId: () => 's1' });
    const pre = shell.toolHooks.preExecute![0]!;
    expect(await pre(call('read'), context(cwd))).toBeUndefined();
    expect(await pre(call('shell'), context(cwd))).toEqual({
      decision: 'deny',
      reason: 'no shell today',
    });
    const seen = JSON.parse(readFileSync(join(cwd, 'seen.json'), 'utf8'));
    expect(seen).toMatchObject({
      event: 'pre-tool-use',
      sessionId: 's1',
      toolName: 'shell',
      args: { command: 'rm -rf /' },
    });
  });

  it('takes an explicit JSON decision from stdout and appends post-tool-use feedback', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'spine-hooks-'));
    const hooks = {
      ...defaultConfig({}).hooks,
      'pre-tool-use': ['echo \'{"decision":"ask","reason":"writes outside src"}\''],
      'post-tool-use': ['echo "lint: 2 warnings" >&2; exit 2'],
    };
    const shell = createShellHooks({ cwd, hooks, sessionId: () => 's1' });
    expect(await shell.toolHooks.preExecute![0]!(call('write'), context(cwd))).toEqual({
      decision: 'ask',
      reason: 'writes outside src',
    });
    const output = await shell.toolHooks.postExecute![0]!(
      call('write'),
      { content: 'ok' },
      context(cwd),
    );
    expect(output?.content).toBe('ok\n\n[post-tool-use hook] lint: 2 warnings');
  });

  it('fires lifecycle hooks with the event on stdin and warns about failures', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'spine-hooks-'));
    const warnings: string[] = [];
    const hooks = { ...defaultConfig({}).hooks, stop: ['cat > stop.json', 'exit 7'] };
    const shell = createShellHooks({
      cwd,
      hooks,
      sessionId: () => 's9',
      onWarning: (w) => warnings.push(w),
    });
    await shell.fire('stop', { reason: 'done' });
    expect(JSON.parse(readFileSync(join(cwd, 'stop.json'), 'utf8'))).toMatchObject({
      event: 'stop',
      reason: 'done',
    });
    expect(warnings).toEqual(['stop hook "exit 7" exited 7: ']);
  });

  it('runs hooks with the given clean environment, or the core set: no key, no startup file', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'spine-hooks-env-'));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(cwd, 'evil.sh'), 'echo STARTUP-MARKER\n');
    const saved = { ...process.env };
    process.env.SPINE_E2E_KEY = 'canary-key';
    process.env.AWS_SECRET_ACCESS_KEY = 'canary-aws';
    process.env.ENV = join(cwd, 'evil.sh');
    process.env.BASH_ENV = join(cwd, 'evil.sh');
    try {
      const hooks = { ...defaultConfig({}).hooks, stop: ['env > stop-env.txt'] };
      await createShellHooks({ cwd, hooks, sessionId: () => 's1' }).fire('stop', {});
      const seen = readFileSync(join(cwd, 'stop-env.txt'), 'utf8');
      expect(seen).toMatch(/^PATH=/m);
      expect(seen).not.toContain('canary');
      expect(seen).not.toMatch(/^(BASH_)?ENV=/m);
      const given = { ...defaultConfig({}).hooks, stop: ['env > given-env.txt'] };
      const env = { PATH: process.env.PATH, ONLY_THIS: '1', BASH_ENV: join(cwd, 'evil.sh') };
      await createShellHooks({ cwd, hooks: given, sessionId: () => 's1', env }).fire('stop', {});
      const lines = readFileSync(join(cwd, 'given-env.txt'), 'utf8');
      expect(lines).toContain('ONLY_THIS=1');
      expect(lines).not.toContain('canary');
      expect(lines).not.toContain('BASH_ENV');
    } finally {
      for (const name of ['SPINE_E2E_KEY', 'AWS_SECRET_ACCESS_KEY', 'ENV', 'BASH_ENV'])
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    }
  });

  it('reads shell.env, shell.unixSockets and protectedPaths from configuration and refuses bad names', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { loadConfig } = await import('./config/load.js');
    const root = mkdtempSync(join(tmpdir(), 'spine-shell-config-'));
    const home = join(root, 'home');
    const cwd = join(root, 'work');
    mkdirSync(home, { recursive: true });
    mkdirSync(join(cwd, '.spine'), { recursive: true });
    const env = { SPINE_CONFIG_HOME: home, HOME: root };
    expect(loadConfig({ cwd, env }).config.shell).toEqual({
      env: { inherit: 'core', set: {}, include: [], exclude: [] },
      unixSockets: 'none',
      network: 'off',
    });
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        shell: {
          env: { inherit: 'none', include: ['NODE_*'], set: { CI: '1' } },
          unixSockets: 'all',
          network: { domains: ['registry.npmjs.org', '*.pypi.org'] },
        },
        protectedPaths: ['.git/config', 'secrets/**'],
      }),
    );
    const { config } = loadConfig({ cwd, env });
    expect(config.shell.env).toEqual({
      inherit: 'none',
      set: { CI: '1' },
      include: ['NODE_*'],
      exclude: [],
    });
    expect(config.shell.unixSockets).toBe('all');
    expect(config.shell.network).toEqual({ domains: ['registry.npmjs.org', '*.pypi.org'] });
    expect(config.protectedPaths).toEqual(['.git/config', 'secrets/**']);
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ shell: { env: { include: ['A B'] } } }),
    );
    expect(() => loadConfig({ cwd, env })).toThrow(/shell\.env\.include/);
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ shell: { env: { inherit: 'some' } } }),
    );
    expect(() => loadConfig({ cwd, env })).toThrow(/shell\.env\.inherit/);
  });
});
