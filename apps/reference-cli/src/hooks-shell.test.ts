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
});
