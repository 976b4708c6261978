import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLazyToolRuntime, createToolRuntime } from '@spine/tool-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { wireMemory } from './memory-wiring.js';

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('memory as the CLI wires it', () => {
  it('follows a policy chosen with /approval before the lazy runtime was built', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spine-remember-'));
    created.push(root);
    const memory = wireMemory({
      cwd: root,
      userFile: join(root, 'config', 'memory.md'),
      sessionId: () => 'sess-1',
      approval: 'ask',
    });
    const runtime = createLazyToolRuntime({
      sandbox: 'workspace-write',
      mapApproval: memory.mapApproval,
      build: () => {
        const built = createToolRuntime({
          cwd: root,
          tools: [memory.tool as never],
          approval: memory.approval.policy,
          sandboxBackend: null,
          protectedPathWriters: memory.protectedPathWriters,
        });
        built.hooks.preExecute.push(memory.approval.hook);
        return built;
      },
    });
    runtime.setApproval('never-ask');
    const asked: string[] = [];
    const call = (fact: string, scope: 'user' | 'project') =>
      runtime.run(
        [
          {
            type: 'tool-call',
            id: fact,
            name: 'remember',
            arguments: JSON.stringify({ fact, scope }),
          },
        ],
        {
          approve: async (request) => {
            asked.push(request.toolCallId);
            return 'deny';
          },
        },
      );
    expect((await call('first', 'user'))[0]?.isError).toBe(false);
    runtime.setApproval('auto-edit');
    expect((await call('second', 'user'))[0]?.outcome).toBe('denied');
    expect((await call('third', 'project'))[0]?.isError).toBe(false);
    expect(asked).toEqual(['second']);
    expect(readFileSync(memory.files[0]!.path, 'utf8')).toContain('- first <!--');
    expect(readFileSync(memory.files[1]!.path, 'utf8')).toContain('- third <!--');
  });
});
