// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${ENV} references are configuration text, not template literals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpManager, type McpManager, McpUrlRefusedError } from '../src/index.js';
import { checkServerUrl } from '../src/internal/url-check.js';
import { runTool, toolNamed } from './helpers.js';
import { type EverythingHttp, startEverythingHttp } from './http-everything.js';

describe('server-everything over HTTP on 127.0.0.1', () => {
  let http: EverythingHttp;
  const managers: McpManager[] = [];
  beforeAll(async () => {
    http = await startEverythingHttp({ token: 'secret-token-123' });
  });
  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.close()));
    await http.close();
  });

  function connect(
    path: string,
    type: 'http' | 'sse' = 'http',
    env = { MCP_TOKEN: 'secret-token-123' },
  ): McpManager {
    const manager = createMcpManager({
      servers: {
        remote: {
          type,
          url: `${http.origin}${path}`,
          headers: { Authorization: 'Bearer ${MCP_TOKEN}' },
        },
      },
      cwd: process.cwd(),
      env,
    });
    managers.push(manager);
    return manager;
  }

  it('connects over Streamable HTTP with a header from ${ENV}, lists and calls tools', async () => {
    const manager = connect('/mcp');
    const tools = await manager.tools();
    expect(manager.status()[0]).toMatchObject({ state: 'ready', transport: 'streamable-http' });
    expect(manager.status()[0]?.description).toBe(`http ${http.origin}/mcp, Authorization: ***`);
    const echo = toolNamed(tools, 'mcp__remote__echo');
    expect(echo.permissions).toEqual({ executes: true, network: true });
    expect((await runTool(echo, { message: 'over http' })).content).toBe('Echo: over http');
    const structured = await runTool(toolNamed(tools, 'mcp__remote__get-structured-content'), {
      location: 'Chicago',
    });
    expect(structured.meta?.structured).toBe(true);
  }, 60_000);

  it('falls back to the legacy SSE transport when Streamable HTTP is refused', async () => {
    const manager = connect('/sse');
    const tools = await manager.tools();
    expect(manager.status()[0]).toMatchObject({ state: 'ready', transport: 'sse' });
    expect((await runTool(toolNamed(tools, 'mcp__remote__echo'), { message: 'sse' })).content).toBe(
      'Echo: sse',
    );
  }, 60_000);

  it('fails the server with a diagnostic when the token is wrong', async () => {
    const manager = connect('/mcp', 'http', { MCP_TOKEN: 'wrong' });
    expect(await manager.tools()).toEqual([]);
    expect(manager.status()[0]?.state).toBe('failed');
    expect(JSON.stringify(manager.diagnostics())).not.toContain('wrong');
  }, 60_000);

  it('refuses plain http to a non-loopback host before connecting', async () => {
    const manager = createMcpManager({
      servers: { far: { type: 'http', url: 'http://example.com/mcp' } },
      cwd: process.cwd(),
    });
    managers.push(manager);
    expect(await manager.tools()).toEqual([]);
    expect(manager.diagnostics()[0]?.message).toContain(
      'plain http is allowed only on a loopback address',
    );
    expect(() => checkServerUrl('far', 'ftp://x/')).toThrow(McpUrlRefusedError);
    expect(() => checkServerUrl('far', 'http://10.0.0.1/mcp')).toThrow(/loopback/);
    expect(checkServerUrl('near', 'http://[::1]:9/mcp').hostname).toBe('[::1]');
    expect(checkServerUrl('far', 'https://example.com/mcp').protocol).toBe('https:');
  }, 60_000);
});
