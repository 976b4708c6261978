import { afterAll, describe, expect, it } from 'vitest';
import { createMcpManager, type McpManager } from '../src/index.js';
import { MAX_MESSAGE_BYTES } from '../src/internal/bounded-reader.js';
import { PROGRESS_BURST, PROGRESS_INTERVAL_MS } from '../src/internal/progress.js';
import { runTool, testServer, toolNamed } from './helpers.js';

const managers: McpManager[] = [];
afterAll(() => Promise.all(managers.map((manager) => manager.close())));

function hostile(maxResultChars?: number): McpManager {
  const manager = createMcpManager({
    servers: {
      big: {
        command: process.execPath,
        args: [testServer('hostile.mjs')],
        env: { NO_BAD_SCHEMA: '1' },
        callTimeoutMs: 60_000,
        ...(maxResultChars === undefined ? {} : { maxResultChars }),
      },
    },
    cwd: process.cwd(),
  });
  managers.push(manager);
  return manager;
}

const MiB = 1024 * 1024;

describe('volume from an MCP server', () => {
  it('cuts results around the stdio transport limit instead of losing the connection', async () => {
    const mcp = hostile();
    const tools = await mcp.tools();
    const big = toolNamed(tools, 'mcp__big__big');
    // Below our limit, just over it, and over the SDK's own 10 MiB limit.
    for (const count of [
      MAX_MESSAGE_BYTES - 4_096,
      MAX_MESSAGE_BYTES + 4_096,
      10 * MiB + 4_096,
      12 * MiB,
    ]) {
      const output = await runTool(big, { count });
      expect(output.isError, `${count}: ${output.content.slice(0, 300)}`).toBe(false);
      expect(output.content.startsWith('xxxx')).toBe(true);
      expect(output.content.length).toBeLessThan(41_000);
      if (count > MAX_MESSAGE_BYTES) expect(output.content).toContain('truncated');
      expect(mcp.status()[0]?.state).toBe('ready');
    }
    // The connection and its one restart are intact: a call after them is served by the same process.
    const after = await runTool(big, { count: 3 });
    expect(after.content).toBe('xxx');
    expect(mcp.diagnostics()).toEqual([]);
    expect(mcp.status()[0]?.error).toBeUndefined();
  }, 120_000);

  it('never sends a lone surrogate: at the result cap, and in a result cut at the transport limit', async () => {
    const mcp = hostile(1_001);
    const tools = await mcp.tools();
    const big = toolNamed(tools, 'mcp__big__big');
    const atCap = await runTool(big, { unit: '😀', count: 2_000 });
    expect(atCap.content).not.toMatch(/\p{Cs}/u);
    expect(atCap.content.startsWith('😀'.repeat(500))).toBe(true);
    for (const prefix of ['', 'a']) {
      // 4 bytes per emoji: the byte cut at 8 MiB lands inside a character for some prefixes.
      const overLimit = await runTool(big, { prefix, unit: '😀', count: 2_200_000 });
      expect(overLimit.isError).toBe(false);
      expect(overLimit.content).not.toMatch(/\p{Cs}/u);
      expect(overLimit.content.startsWith(`${prefix}😀😀`)).toBe(true);
    }
  }, 120_000);

  it('coalesces 30,000 progress notifications to a burst and one per interval', async () => {
    const mcp = hostile();
    const tools = await mcp.tools();
    const shown: string[] = [];
    const started = performance.now();
    const output = await runTool(
      toolNamed(tools, 'mcp__big__progress'),
      { count: 30_000 },
      { onProgress: ({ message }) => shown.push(message ?? '') },
    );
    const elapsed = performance.now() - started;
    expect(output.content).toBe('sent 30000');
    expect(shown.length).toBeGreaterThan(0);
    // A burst, then at most one per interval while the call ran, then the last one held back.
    expect(shown.length).toBeLessThanOrEqual(
      PROGRESS_BURST + Math.ceil(elapsed / PROGRESS_INTERVAL_MS) + 1,
    );
    const values = shown.map((message) => Number(/(\d+)\/30000$/.exec(message)?.[1]));
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    console.info(
      `30,000 progress notifications: ${shown.length} shown in ${Math.round(elapsed)} ms`,
    );
  }, 60_000);
});
