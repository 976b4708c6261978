import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileOAuthProvider, createMcpManager, type McpManager } from '../src/index.js';
import { runTool, tempFolder, toolNamed } from './helpers.js';
import { type OAuthEverything, startOAuthEverything } from './oauth-server.js';

describe('a remote server behind OAuth', () => {
  let server: OAuthEverything;
  let origin: string;
  const managers: McpManager[] = [];
  beforeAll(async () => {
    server = await startOAuthEverything();
    origin = server.origin;
  });
  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.close()));
    await server.close();
  });

  it('authorizes once, stores the tokens owner-only outside the workspace, and reuses them', async () => {
    const folder = tempFolder('spine-mcp-oauth-');
    const file = join(folder, 'config', 'mcp-oauth', 'secure.json');
    const authorizations: string[] = [];
    // Plays the person's browser: follows the authorization URL and reads the code off the redirect.
    const authorize = async (url: URL): Promise<string> => {
      authorizations.push(url.origin);
      const answer = await fetch(url, { redirect: 'manual' });
      const location = new URL(answer.headers.get('location') ?? '', url);
      const code = location.searchParams.get('code');
      if (!code) throw new Error(`no code in ${location.href}`);
      return code;
    };
    const connect = (): McpManager => {
      const manager = createMcpManager({
        servers: { secure: { type: 'http', url: `${origin}/mcp` } },
        cwd: folder,
        authProvider: () =>
          createFileOAuthProvider({ file, redirectUrl: 'http://127.0.0.1:9/callback', authorize }),
      });
      managers.push(manager);
      return manager;
    };
    const first = connect();
    const tools = await first.tools();
    expect(first.diagnostics()).toEqual([]);
    expect(
      (await runTool(toolNamed(tools, 'mcp__secure__echo'), { message: 'authorized' })).content,
    ).toBe('Echo: authorized');
    expect(authorizations).toEqual([origin]);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { tokens?: { access_token?: string } };
    expect(stored.tokens?.access_token).toBeTruthy();
    // A second session uses the stored token: no new authorization.
    const second = connect();
    expect((await second.tools()).length).toBeGreaterThan(0);
    expect(authorizations).toHaveLength(1);
  }, 60_000);

  it('fails the server with a diagnostic when the authorization is refused', async () => {
    const folder = tempFolder('spine-mcp-oauth-');
    const manager = createMcpManager({
      servers: { secure: { type: 'http', url: `${origin}/mcp` } },
      cwd: folder,
      authProvider: () =>
        createFileOAuthProvider({
          file: join(folder, 'secure.json'),
          redirectUrl: 'http://127.0.0.1:9/callback',
          authorize: async () => {
            throw new Error('the person declined');
          },
        }),
    });
    managers.push(manager);
    expect(await manager.tools()).toEqual([]);
    expect(manager.diagnostics()[0]?.message).toContain('the person declined');
  }, 60_000);
});
