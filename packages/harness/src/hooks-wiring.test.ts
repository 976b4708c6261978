import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApprovalRequest, HookInputSchema, type HookRunBody } from '@spine/protocol';
import { createShellHooks, type ShellHookConfig } from '@spine/tool-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { approveWithHooks } from './hooks-wiring.js';

// permission-request and notification hooks around the person's approval, with real `sh` commands.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(hooks: ShellHookConfig): {
  cwd: string;
  runs: HookRunBody[];
  asked: ApprovalRequest[];
  approve: NonNullable<ReturnType<typeof approveWithHooks>>;
} {
  const cwd = mkdtempSync(join(tmpdir(), 'spine-hook-wiring-'));
  dirs.push(cwd);
  const runs: HookRunBody[] = [];
  const asked: ApprovalRequest[] = [];
  const shell = createShellHooks({
    cwd,
    hooks,
    sessionId: () => 'session-1',
    onRun: (record) => runs.push(record),
  });
  const approve = approveWithHooks(shell, async (request) => {
    asked.push(request);
    return 'once';
  });
  if (!approve) throw new Error('no approve');
  return { cwd, runs, asked, approve };
}

const request: ApprovalRequest = {
  toolCallId: 'call_1',
  toolName: 'bash',
  args: { command: 'make' },
  reason: 'runs a command',
};

describe('permission-request and notification hooks', () => {
  it('answers from the hook without asking the person', async () => {
    const { approve, asked, runs } = setup({
      'permission-request': [`echo '{"decision":"deny","reason":"not today"}'`],
    });
    // The hook is named as the decider, with its reason (recorded as the approval's `by`).
    expect(await approve(request, {})).toEqual({
      answer: 'deny',
      by: 'hook:permission-request',
      reason: 'not today',
    });
    expect(asked).toEqual([]);
    expect(runs).toMatchObject([
      { event: 'permission-request', decision: 'deny', reason: 'not today' },
    ]);
  });

  it('asks the person, after a notification, when the hook has no opinion or may not allow', async () => {
    const { approve, asked, cwd, runs } = setup({
      'permission-request': [`echo '{"decision":"allow"}'`],
      notification: ['cat > note.json'],
    });
    expect(await approve(request, {})).toMatchObject({
      answer: 'once',
      by: 'hook:permission-request',
    });
    expect(asked).toEqual([]);
    // A protected write needs a person: the hook's allow does not answer it.
    expect(await approve({ ...request, personOnly: true }, {})).toBe('once');
    expect(asked).toHaveLength(1);
    expect(
      HookInputSchema.parse(JSON.parse(readFileSync(join(cwd, 'note.json'), 'utf8'))),
    ).toMatchObject({
      event: 'notification',
      kind: 'permission',
      sessionId: 'session-1',
    });
    expect(runs.map((run) => run.event)).toEqual([
      'permission-request',
      'permission-request',
      'notification',
    ]);
  });

  it('fails closed: a hook that cannot run denies', async () => {
    const { approve, asked, runs } = setup({ 'permission-request': ['/nonexistent/hook'] });
    expect(await approve(request, {})).toMatchObject({
      answer: 'deny',
      by: 'hook:permission-request',
    });
    expect(asked).toEqual([]);
    expect(runs[0]).toMatchObject({ decision: 'deny' });
    expect(runs[0]?.exitCode).not.toBe(0);
  });
});
