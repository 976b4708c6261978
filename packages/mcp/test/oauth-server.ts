// A loopback MCP server behind OAuth 2.1: the SDK's auth router with its in-memory demo provider
// (which approves every authorization at once) in front of server-everything over Streamable HTTP.
// Discovery, dynamic client registration, PKCE, the code exchange and bearer checks are real HTTP.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** The running server: `origin` is `http://127.0.0.1:<port>`, the MCP endpoint `${origin}/mcp`. */
export interface OAuthEverything {
  origin: string;
  close(): Promise<void>;
}

/** Starts the OAuth-protected server on 127.0.0.1. */
export async function startOAuthEverything(): Promise<OAuthEverything> {
  const app = express();
  const http = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
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
  return {
    origin,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
