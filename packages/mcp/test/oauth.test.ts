import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// @ts-expect-error: the reference server ships JavaScript without types.
import { createServer as createEverything } from '@modelcontextprotocol/server-everything/dist/server/index.js';
// @ts-expect-error: express (the SDK's dependency for its auth router) ships without types.
import expressModule from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileOAuthProvider, createMcpManager, type McpManager } from '../src/index.js';
import { runTool, tempFolder, toolNamed } from './helpers.js';

type Handler = (
  request: IncomingMessage & { body?: unknown },
  response: ServerResponse,
  next: () => void,
) => void;
interface ExpressApp {
  use(handler: unknown): void;
  all(path: string, ...handlers: unknown[]): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = expressModule as { (): ExpressApp; json(): Handler };

// A loopback MCP server behind OAuth 2.1 (the SDK's auth router with its in-memory demo provider,
// which approves every authorization at once): discovery, dynamic client registration, PKCE,
// the code exchange and bearer checks are all real HTTP on 127.0.0.1.
describe('a remote server behind OAuth', () => {
  let http: Server;
  let origin: string;
  const managers: McpManager[] = [];
  beforeAll(async () => {
    const app = express();
    http = await new Promise<Server>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server));
    });
    origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const provider = new DemoInMemoryAuthProvider();
    const mcpUrl = new URL(`${origin}/mcp`);
    app.use(mcpAuthRouter({ provider, issuerUrl: new URL(origin), resourceServerUrl: mcpUrl }));
    const bearer = requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    });
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    app.all(
      '/mcp',
      express.json(),
      bearer,
      async (request: IncomingMessage & { body?: unknown }, response: ServerResponse) => {
        const id = request.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? sessions.get(id) : undefined;
        if (!transport) {
          const created = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (session) => void sessions.set(session, created),
          });
          transport = created;
          await (
            createEverything() as { server: { connect(t: unknown): Promise<void> } }
          ).server.connect(created);
        }
        await transport.handleRequest(request, response, request.body);
      },
    );
  });
  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.close()));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
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
