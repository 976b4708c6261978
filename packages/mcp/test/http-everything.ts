// server-everything served over HTTP on 127.0.0.1 in this process: Streamable HTTP at /mcp and
// the legacy HTTP+SSE transport at /sse + /message, behind an optional bearer token.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// @ts-expect-error: the reference server ships JavaScript without types.
import { createServer as createEverything } from '@modelcontextprotocol/server-everything/dist/server/index.js';

type Everything = {
  server: { connect(transport: unknown): Promise<void>; close(): Promise<void> };
  cleanup(id?: string): void;
};

export interface EverythingHttp {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Requests seen, as `METHOD path`. */
  requests: string[];
  close(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** Starts the server; `token` makes every request need `Authorization: Bearer <token>`. */
export async function startEverythingHttp(
  options: { token?: string } = {},
): Promise<EverythingHttp> {
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const servers: Everything[] = [];
  const requests: string[] = [];
  const http: Server = createHttpServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method} ${url.pathname}`);
    if (options.token && request.headers.authorization !== `Bearer ${options.token}`) {
      response.writeHead(401).end('unauthorized');
      return;
    }
    try {
      if (url.pathname === '/mcp') {
        const parsed = request.method === 'POST' ? await body(request) : undefined;
        const id = request.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? streamable.get(id) : undefined;
        if (!transport) {
          if (request.method !== 'POST' || id !== undefined) {
            response.writeHead(404).end('unknown session');
            return;
          }
          const everything = createEverything() as Everything;
          servers.push(everything);
          const created = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (session) => void streamable.set(session, created),
          });
          transport = created;
          await everything.server.connect(created);
        }
        await transport.handleRequest(request, response, parsed);
        return;
      }
      if (url.pathname === '/sse' && request.method === 'GET') {
        const transport = new SSEServerTransport('/message', response);
        sse.set(transport.sessionId, transport);
        const everything = createEverything() as Everything;
        servers.push(everything);
        await everything.server.connect(transport);
        return;
      }
      if (url.pathname === '/message' && request.method === 'POST') {
        const transport = sse.get(url.searchParams.get('sessionId') ?? '');
        if (!transport) {
          response.writeHead(404).end('unknown session');
          return;
        }
        await transport.handlePostMessage(request, response, await body(request));
        return;
      }
      response.writeHead(405).end('method not allowed');
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const everything of servers) {
        everything.cleanup();
        await everything.server.close().catch(() => undefined);
      }
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
