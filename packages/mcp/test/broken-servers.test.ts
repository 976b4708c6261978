import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpManager, type McpManager, type McpServersConfig } from '../src/index.js';
import { runTool, tempFolder, testServer, toolNamed } from './helpers.js';

const managers: McpManager[] = [];
afterAll(() => Promise.all(managers.map((manager) => manager.close())));

function manager(servers: McpServersConfig): McpManager {
  const created = createMcpManager({ servers, cwd: process.cwd() });
  managers.push(created);
  return created;
}

function node(
  file: string,
  extra: Partial<McpServersConfig[string]> = {},
): McpServersConfig[string] {
  return {
    command: process.execPath,
    args: [testServer(file)],
    ...extra,
  } as McpServersConfig[string];
}

describe('deliberately broken servers', () => {
  it('reports a server that crashes on start as a diagnostic with its stderr, and keeps the others', async () => {
    const folder = tempFolder();
    const mcp = manager({
      broken: node('crash-on-start.mjs'),
      good: node('misbehaving.mjs', { env: { CRASH_MARKER: join(folder, 'marker') } }),
    });
    const tools = await mcp.tools();
    expect(tools.some((tool) => tool.spec.name === 'mcp__good__pid')).toBe(true);
    expect(tools.some((tool) => tool.spec.name.startsWith('mcp__broken__'))).toBe(false);
    const [diagnostic] = mcp.diagnostics().filter((entry) => entry.server === 'broken');
    expect(diagnostic?.message).toContain('crash-on-start: configuration missing');
    expect(mcp.status().find((entry) => entry.name === 'broken')).toMatchObject({
      state: 'failed',
    });
  }, 60_000);

  it('gives up on a server that writes invalid JSON-RPC after the start timeout', async () => {
    const mcp = manager({ garbage: node('garbage.mjs', { startTimeoutMs: 1_500 }) });
    expect(await mcp.tools()).toEqual([]);
    expect(mcp.diagnostics()[0]?.message).toMatch(/start-timeout/);
  }, 60_000);

  describe('the misbehaving server', () => {
    const folder = tempFolder();
    const mcp = manager({
      bad: node('misbehaving.mjs', {
        env: { CRASH_MARKER: join(folder, 'marker'), CANCEL_MARKER: join(folder, 'cancelled') },
        trust: true,
        callTimeoutMs: 1_000,
        maxResultChars: 5_000,
        tools: { liar: { readOnly: false } },
      }),
    });

    it('skips the tool whose schema does not compile and reports it, keeping the rest', async () => {
      const names = (await mcp.tools()).map((tool) => tool.spec.name);
      expect(names).not.toContain('mcp__bad__bad-schema');
      expect(names).toContain('mcp__bad__pid');
      expect(mcp.diagnostics()).toEqual([
        expect.objectContaining({
          server: 'bad',
          tool: 'bad-schema',
          message: expect.stringContaining('does not compile'),
        }),
      ]);
    }, 60_000);

    it('lets the user override lying annotations', async () => {
      const tools = await mcp.tools();
      const liar = toolNamed(tools, 'mcp__bad__liar');
      expect(liar.permissions).toEqual({ executes: true });
      expect(liar.isConcurrencySafe).toBe(false);
      const pid = toolNamed(tools, 'mcp__bad__pid');
      expect(pid.permissions).toEqual({});
      expect(pid.isConcurrencySafe).toBe(true);
    }, 60_000);

    it('cuts a huge result at the cap and records the original length', async () => {
      const output = await runTool(toolNamed(await mcp.tools(), 'mcp__bad__huge'), {});
      expect(output.content.length).toBeLessThan(5_100);
      expect(output.content).toContain('[truncated: showed 5000 of 1000000 characters]');
      expect(output.meta).toMatchObject({ truncated: true, originalLength: 1_000_000 });
    }, 60_000);

    it('times out a call that hangs (the tool timeout aborts it) and stays usable', async () => {
      const tools = await mcp.tools();
      const hang = toolNamed(tools, 'mcp__bad__hang');
      expect(hang.timeoutMs).toBe(1_000);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error('timeout')), hang.timeoutMs);
      await expect(runTool(hang, {}, { signal: controller.signal })).rejects.toThrow();
      clearTimeout(timer);
      // The abort reached the server as notifications/cancelled.
      const deadline = Date.now() + 10_000;
      while (!existsSync(join(folder, 'cancelled')) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(existsSync(join(folder, 'cancelled'))).toBe(true);
      expect((await runTool(toolNamed(tools, 'mcp__bad__pid'), {})).isError).toBe(false);
    }, 60_000);

    it('updates the tool set after list_changed and reports which server changed', async () => {
      const tools = await mcp.tools();
      mcp.takeChanges();
      const changed = new Promise<string>((resolve) => mcp.onToolsChanged(resolve));
      await runTool(toolNamed(tools, 'mcp__bad__add-tool'), {});
      expect(await changed).toBe('bad');
      expect(mcp.takeChanges()).toEqual(['bad']);
      const added = toolNamed(mcp.definitions(), 'mcp__bad__added');
      expect((await runTool(added, {})).content).toBe('I am new');
    }, 60_000);

    it('restarts a read-only tool after a crash and retries the call once', async () => {
      const tools = await mcp.tools();
      const before = (await runTool(toolNamed(tools, 'mcp__bad__pid'), {})).content;
      const output = await runTool(toolNamed(tools, 'mcp__bad__crash-once'), {});
      expect(existsSync(join(folder, 'marker'))).toBe(true);
      expect(output).toMatchObject({ content: 'survived', isError: false });
      expect(output.meta?.retriedAfterRestart).toBe(true);
      const after = (await runTool(toolNamed(mcp.definitions(), 'mcp__bad__pid'), {})).content;
      expect(after).not.toBe(before);
    }, 60_000);

    it('does not retry a side-effecting call after a second crash: outcome unknown', async () => {
      const output = await runTool(toolNamed(mcp.definitions(), 'mcp__bad__crash'), {});
      expect(output.isError).toBe(true);
      expect(output.content).toMatch(/outcome of crash is unknown|outcome is unknown/);
      expect(output.meta?.reason).toBe('crashed');
    }, 60_000);
  });

  it('restarts a server that crashed once, and gives up after the second failure', async () => {
    const mcp = manager({ twice: node('misbehaving.mjs') });
    const tools = await mcp.tools();
    // First crash: restarted (the side-effecting call is not retried).
    expect((await runTool(toolNamed(tools, 'mcp__twice__crash'), {})).content).toContain(
      'it was restarted',
    );
    // Second crash: no more restarts; later calls are not made.
    const second = await runTool(toolNamed(mcp.definitions(), 'mcp__twice__crash'), {});
    expect(second).toMatchObject({ isError: true, meta: { reason: 'crashed' } });
    const after = await runTool(toolNamed(mcp.definitions(), 'mcp__twice__pid'), {});
    expect(after).toMatchObject({ isError: true, meta: { reason: 'unavailable' } });
    expect(after.content).toContain('was not made');
    expect(mcp.status()[0]?.state).toBe('failed');
  }, 60_000);

  it('does not retry a side-effecting tool after its first crash', async () => {
    const mcp = manager({ side: node('misbehaving.mjs') });
    const output = await runTool(toolNamed(await mcp.tools(), 'mcp__side__crash'), {});
    expect(output.isError).toBe(true);
    expect(output.content).toContain('it was restarted');
    expect(output.content).toContain('not read-only, so it was not retried');
    expect((await runTool(toolNamed(mcp.definitions(), 'mcp__side__pid'), {})).isError).toBe(false);
  }, 60_000);
});
