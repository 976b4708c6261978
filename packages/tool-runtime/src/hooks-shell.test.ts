import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDefinition, ToolExecutionContext, ToolHookCall } from '@spine/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { createShellHooks, type ShellHookConfig } from './hooks-shell.js';

// Temporary folders made by these tests, removed when the file's tests are done.
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const NO_HOOKS: ShellHookConfig = {
  'session-start': [],
  'pre-tool-use': [],
  'post-tool-use': [],
  'pre-compact': [],
  stop: [],
};

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
    const cwd = tempFolder('spine-hooks-');
    const hooks = {
      ...NO_HOOKS,
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
    const cwd = tempFolder('spine-hooks-');
    const hooks = {
      ...NO_HOOKS,
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
    const cwd = tempFolder('spine-hooks-');
    const warnings: string[] = [];
    const hooks = { ...NO_HOOKS, stop: ['cat > stop.json', 'exit 7'] };
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
    const cwd = tempFolder('spine-hooks-env-');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(cwd, 'evil.sh'), 'echo STARTUP-MARKER\n');
    const saved = { ...process.env };
    process.env.SPINE_E2E_KEY = 'canary-key';
    process.env.AWS_SECRET_ACCESS_KEY = 'canary-aws';
    process.env.ENV = join(cwd, 'evil.sh');
    process.env.BASH_ENV = join(cwd, 'evil.sh');
    try {
      const hooks = { ...NO_HOOKS, stop: ['env > stop-env.txt'] };
      await createShellHooks({ cwd, hooks, sessionId: () => 's1' }).fire('stop', {});
      const seen = readFileSync(join(cwd, 'stop-env.txt'), 'utf8');
      expect(seen).toMatch(/^PATH=/m);
      expect(seen).not.toContain('canary');
      expect(seen).not.toMatch(/^(BASH_)?ENV=/m);
      const given = { ...NO_HOOKS, stop: ['env > given-env.txt'] };
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
});

describe('createShellHooks matchers and timeouts', () => {
  it('runs a tool hook only for the tools its matcher names and warns when one times out', async () => {
    const cwd = tempFolder('spine-hooks-');
    const warnings: string[] = [];
    const shell = createShellHooks({
      cwd,
      hooks: {
        ...NO_HOOKS,
        'pre-tool-use': [
          { command: 'echo no >&2; exit 2', matcher: 'write|edit' },
          { command: 'sleep 5', timeoutMs: 200, matcher: 'read' },
        ],
      },
      sessionId: () => 's1',
      onWarning: (warning) => warnings.push(warning),
    });
    const pre = shell.toolHooks.preExecute![0]!;
    expect(await pre(call('edit'), context(cwd))).toEqual({ decision: 'deny', reason: 'no' });
    expect(await pre(call('bash'), context(cwd))).toBeUndefined();
    expect(await pre(call('read'), context(cwd))).toBeUndefined();
    expect(warnings).toEqual(['pre-tool-use hook "sleep 5" timed out after 200 ms']);
    expect(createShellHooks({ cwd, hooks: NO_HOOKS, sessionId: () => 's1' }).toolHooks).toEqual({
      preExecute: [],
      postExecute: [],
    });
  });
});
