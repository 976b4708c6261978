import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolRuntime } from './runtime.js';
import { createLazyToolRuntime } from './runtime-lazy.js';
import { createWorkspaceTools } from './workspace-tools.js';

describe('createLazyToolRuntime', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'spine-lazy-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('builds once on first use and applies sandbox and approval changes made before', async () => {
    let builds = 0;
    const runtime = createLazyToolRuntime({
      sandbox: 'workspace-write',
      build: () => {
        builds++;
        return createToolRuntime({
          cwd,
          tools: createWorkspaceTools({ cwd }),
          sandboxBackend: null,
        });
      },
    });
    runtime.setSandbox('read-only');
    runtime.setApproval('deny-all');
    expect(runtime.sandbox).toBe('read-only');
    expect(runtime.built).toBe(false);
    expect(runtime.specs().map((spec) => spec.name)).toContain('read');
    expect(runtime.specs()).toHaveLength(runtime.specs().length);
    expect(builds).toBe(1);
    expect(runtime.sandbox).toBe('read-only');
    const [result] = await runtime.run([
      { type: 'tool-call', id: 'c1', name: 'write', arguments: '{"path":"a.txt","content":"x"}' },
    ]);
    expect(result).toMatchObject({ toolName: 'write', isError: true, outcome: 'denied' });
  });
});
