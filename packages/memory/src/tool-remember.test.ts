import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalAnswer, ApprovalRequest, ToolResultBody } from '@spine/protocol';
import {
  type ApprovalPolicyName,
  createApprovalPolicy,
  createToolRuntime,
} from '@spine/tool-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryApproval } from './memory-approval.js';
import { MAX_MEMORY_BYTES, memoryFiles, PROJECT_MEMORY_PATH } from './memory-file.js';
import { createRememberTool, REMEMBER_TOOL } from './tool-remember.js';

// Temp folders this file makes, removed when it ends.
const created: string[] = [];
function track(dir: string): string {
  created.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real tool runtime with the remember tool and the user-memory approval rule, as wired. */
function setup(
  approval: ApprovalPolicyName,
  sandbox: 'read-only' | 'workspace-write' = 'workspace-write',
) {
  const root = track(mkdtempSync(join(tmpdir(), 'spine-remember-')));
  const cwd = join(root, 'ws');
  mkdirSync(cwd);
  const files = memoryFiles(cwd, { userFile: join(root, 'config', 'memory.md') });
  const rule = createMemoryApproval(createApprovalPolicy(approval));
  const tool = createRememberTool({
    files,
    sessionId: () => 'sess-1',
    now: () => new Date('2026-11-30T10:00:00Z'),
  });
  const runtime = createToolRuntime({
    cwd,
    tools: [tool as never],
    sandbox,
    approval: rule.policy,
    sandboxBackend: null,
    // The default protected paths (`.spine/**` among them), with project memory left to remember.
    protectedPathWriters: { [REMEMBER_TOOL]: [PROJECT_MEMORY_PATH] },
  });
  runtime.hooks.preExecute.push(rule.hook);
  const asked: ApprovalRequest[] = [];
  let id = 0;
  const remember = async (args: object, answer?: ApprovalAnswer): Promise<ToolResultBody> => {
    const [result] = await runtime.run(
      [
        {
          type: 'tool-call',
          id: `call_${++id}`,
          name: 'remember',
          arguments: JSON.stringify(args),
        },
      ],
      answer
        ? {
            approve: async (request) => {
              asked.push(request);
              return answer;
            },
          }
        : {},
    );
    return result!;
  };
  return { cwd, user: files[0]!, project: files[1]!, runtime, remember, asked };
}

describe('the remember tool', () => {
  it('writes project memory under auto-edit and names it by its relative label', async () => {
    const { project, remember, asked } = setup('auto-edit');
    const result = await remember({ fact: 'Tests run with npm test' });
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      'Remembered in project memory (.spine/memory.md): "Tests run with npm test". It applies from the next session; this session\'s system prompt does not change.',
    );
    expect(asked).toEqual([]);
    expect(readFileSync(project.path, 'utf8')).toContain(
      '- Tests run with npm test <!-- spine: session sess-1, 2026-11-30 -->',
    );
    const again = await remember({ fact: 'tests RUN with  npm test', scope: 'project' });
    expect(again.content).toBe(
      'Already remembered in project memory (.spine/memory.md): "tests RUN with  npm test". Nothing was added.',
    );
  });

  it('asks a person before writing user memory under auto-edit and ask, and writes nothing on deny', async () => {
    for (const policy of ['auto-edit', 'ask'] as const) {
      const { user, remember, asked } = setup(policy);
      const denied = await remember({ fact: 'Reply in English', scope: 'user' }, 'deny');
      expect(denied.outcome).toBe('denied');
      expect(asked[0]?.reason).toContain('writes user memory');
      expect(existsSync(user.path)).toBe(false);
      const nobody = await remember({ fact: 'Reply in English', scope: 'user' });
      expect(nobody.content).toContain('nobody can be asked');
      expect(existsSync(user.path)).toBe(false);
      const allowed = await remember({ fact: 'Reply in English', scope: 'user' }, 'once');
      expect(allowed.content).toBe(
        'Remembered in user memory: "Reply in English". It applies from the next session; this session\'s system prompt does not change.',
      );
      expect(readFileSync(user.path, 'utf8')).toContain('- Reply in English <!--');
    }
  });

  it('never lets an "always" given to project memory cover a user-memory write', async () => {
    const { user, remember, asked } = setup('ask');
    await remember({ fact: 'Use tabs' }, 'always');
    const next = await remember({ fact: 'Use spaces elsewhere', scope: 'user' }, 'deny');
    expect(asked.map((request) => (request.args as { scope?: string }).scope)).toEqual([
      'project',
      'user',
    ]);
    expect(next.outcome).toBe('denied');
    expect(existsSync(user.path)).toBe(false);
  });

  it('writes user memory without asking under never-ask and refuses it under deny-all', async () => {
    const never = setup('never-ask');
    expect(
      (await never.remember({ fact: 'Reply in English', scope: 'user' }, 'deny')).isError,
    ).toBe(false);
    expect(never.asked).toEqual([]);
    expect(existsSync(never.user.path)).toBe(true);
    const denyAll = setup('deny-all');
    expect((await denyAll.remember({ fact: 'x', scope: 'user' }, 'once')).outcome).toBe('denied');
    expect(existsSync(denyAll.user.path)).toBe(false);
  });

  it('refuses in the read-only sandbox, for a full file, a symbolic link and a multi-line fact', async () => {
    const readOnly = setup('never-ask', 'read-only');
    const refused = await readOnly.remember({ fact: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain('read-only sandbox');
    expect(existsSync(readOnly.project.path)).toBe(false);

    const { cwd, project, remember } = setup('never-ask');
    mkdirSync(join(cwd, '.spine'));
    writeFileSync(project.path, '- filler\n'.repeat(Math.floor(MAX_MEMORY_BYTES / 9)));
    const full = await remember({ fact: 'one more' });
    expect(full.isError).toBe(true);
    expect(full.content).toMatch(/^project memory \(\.spine\/memory\.md\) is full .* prune it/);

    const linked = setup('never-ask');
    const elsewhere = track(mkdtempSync(join(tmpdir(), 'spine-elsewhere-')));
    symlinkSync(elsewhere, join(linked.cwd, '.spine'));
    expect((await linked.remember({ fact: 'x' })).content).toContain('symbolic link');
    expect(existsSync(join(elsewhere, 'memory.md'))).toBe(false);

    const multiLine = await remember({ fact: 'one\ntwo' });
    expect(multiLine.outcome).toBe('invalid');
  });
});
