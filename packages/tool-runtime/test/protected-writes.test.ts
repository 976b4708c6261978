// Under auto-edit with an allow rule for `git status` (the README's example), the model must not be
// able to make `git status` run code nobody approved by editing git's configuration or hooks.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalAnswer, ApprovalRequest } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime, createWorkspaceTools, type ToolRuntime } from '../src/index.js';
import { makeTempDir, toolCall } from './helpers.js';

let temp: { dir: string; cleanup: () => void };
let marker: string;
const asked: ApprovalRequest[] = [];
let answer: ApprovalAnswer = 'deny';
let runtime: ToolRuntime;

const run = async (name: string, args: unknown) => {
  const [result] = await runtime.run([toolCall(name, args)], {
    approve: async (request) => {
      asked.push(request);
      return answer;
    },
  });
  return result!;
};

beforeAll(() => {
  temp = makeTempDir('spine-protected-');
  marker = join(temp.dir, 'fsmonitor-ran');
  execFileSync('git', ['init', '-q', temp.dir]);
  writeFileSync(join(temp.dir, 'a.txt'), 'a\n');
  runtime = createToolRuntime({
    cwd: temp.dir,
    approval: 'auto-edit',
    sandbox: 'workspace-write',
    rules: [{ tool: 'bash', argument: 'command', prefix: 'git status', decision: 'allow' }],
    tools: createWorkspaceTools({ cwd: temp.dir }),
  });
});
afterAll(() => temp.cleanup());

describe('protected paths under auto-edit', () => {
  it('an ordinary edit still runs without asking', async () => {
    asked.length = 0;
    await run('read', { path: 'a.txt' });
    const result = await run('edit', { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(result.outcome).toBe('ok');
    expect(asked).toEqual([]);
  });

  it('adding core.fsmonitor to .git/config asks a person, and a refusal leaves it unchanged', async () => {
    asked.length = 0;
    const before = readFileSync(join(temp.dir, '.git/config'), 'utf8');
    await run('read', { path: '.git/config' });
    const edit = await run('edit', {
      path: '.git/config',
      edits: [{ oldText: '[core]', newText: `[core]\n\tfsmonitor = "touch ${marker}; false"` }],
    });
    expect(edit.outcome).toBe('denied');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.reason).toMatch(/\.git\/config, a protected path/);
    const write = await run('write', {
      path: '.git/config',
      content: `${before}[core]\n\tfsmonitor = x\n`,
    });
    expect(write.outcome).toBe('denied');
    expect(asked).toHaveLength(2);
    expect(readFileSync(join(temp.dir, '.git/config'), 'utf8')).toBe(before);
  });

  it('writing a git hook or Spine configuration asks a person', async () => {
    asked.length = 0;
    for (const path of [
      '.git/hooks/pre-commit',
      '.git/hooks',
      '.spine/config.json',
      '.GIT/CONFIG',
    ]) {
      const result = await run('write', { path, content: '#!/bin/sh\ntouch pwned\n' });
      expect(result.outcome).toBe('denied');
    }
    expect(asked.map((request) => (request.args as { path: string }).path)).toEqual([
      '.git/hooks/pre-commit',
      '.git/hooks',
      '.spine/config.json',
      '.GIT/CONFIG',
    ]);
    expect(existsSync(join(temp.dir, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('a symbolic link into .git is judged by its target', async () => {
    asked.length = 0;
    symlinkSync('.git/config', join(temp.dir, 'cfg'));
    const result = await run('write', { path: 'cfg', content: '[core]\n\tfsmonitor = x\n' });
    expect(result.outcome).toBe('denied');
    expect(asked[0]!.reason).toMatch(/\.git\/config/);
  });

  it('an always answer for a protected write is not remembered', async () => {
    asked.length = 0;
    answer = 'always';
    await run('write', { path: '.spine/notes.md', content: 'one\n' });
    answer = 'deny';
    await run('read', { path: '.spine/notes.md' });
    const second = await run('write', { path: '.spine/notes.md', content: 'two\n' });
    expect(second.outcome).toBe('denied');
    expect(asked).toHaveLength(2);
    expect(readFileSync(join(temp.dir, '.spine/notes.md'), 'utf8')).toBe('one\n');
  });

  it('git status, allowed by the rule, then runs without asking and runs nothing the model wrote', async () => {
    asked.length = 0;
    const status = await run('bash', { command: 'git status --short' });
    expect(status.outcome).toBe('ok');
    expect(asked).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it('never-ask refuses protected writes instead of running them; danger-full-access does not protect', async () => {
    runtime.setApproval('never-ask');
    const refused = await run('write', { path: '.git/hooks/post-checkout', content: 'x' });
    expect(refused.outcome).toBe('denied');
    expect(refused.content).toMatch(/never-ask policy never asks/);
    runtime.setSandbox('danger-full-access');
    const allowed = await run('write', { path: '.git/hooks/applypatch-msg', content: 'x' });
    expect(allowed.outcome).toBe('ok');
    runtime.setSandbox('workspace-write');
    runtime.setApproval('auto-edit');
  });
});
