import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpServeAddressError } from '../errors.js';
import type { McpToolServer } from './tool-server.js';

/** Options of {@link startMcpHttpServer}. */
export interface McpHttpServerOptions {
  /** A fresh MCP server for each client session (e.g. from `createMcpToolServer`). */
  createServer: () => McpToolServer;
  /** Loopback address to listen on: `127.0.0.1` (default) or `::1`. */
  host?: string;
  /** Port (default 0: a free one). */
  port?: number;
  /** The bearer token clients must send (default: 32 random bytes, hex). */
  token?: string;
}

/** A running Streamable HTTP endpoint. */
export interface McpHttpServer {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The bearer token (`Authorization: Bearer <token>`). */
  token: string;
  /** Closes every client session and the listener. */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1']);

function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

/** The `Host` header names this listener by a loopback name (refuses DNS-rebinding hosts). */
function isLoopbackHost(header: string | undefined, port: number): boolean {
  if (!header) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(header.toLowerCase());
}

function tokenMatches(header: string | undefined, token: Buffer): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  return given.length === token.length && timingSafeEqual(given, token);
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(status === 401 ? { 'www-authenticate': 'Bearer realm="spine"' } : {}),
  });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/**
 * Serves MCP over Streamable HTTP on a loopback address, one MCP server per client session. A
 * request is refused unless it comes from loopback, names the listener by a loopback `Host`
 * (no DNS rebinding), and carries the bearer token; only `/mcp` is served.
 *
 * @throws an {@link McpServeAddressError} when `host` is not a loopback address.
 * @example
 * ```ts
 * const http = await startMcpHttpServer({ createServer: () => createMcpToolServer({ scheduler }) });
 * console.error(`MCP at ${http.url}, token ${http.token}`);
 * ```
 */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(host)) throw new McpServeAddressError({ host });
  const token = options.token ?? randomBytes(32).toString('hex');
  const expected = Buffer.from(token);
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; server: McpToolServer }
  >();
  let port = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!isLoopbackPeer(request.socket.remoteAddress))
      return refuse(response, 403, 'only loopback clients are served');
    if (!isLoopbackHost(request.headers.host, port))
      return refuse(response, 403, 'the Host header does not name this loopback listener');
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp')
      return refuse(response, 404, 'not found; the endpoint is /mcp');
    if (!tokenMatches(request.headers.authorization, expected))
      return refuse(response, 401, 'missing or wrong bearer token (spine mcp serve printed it)');
    const id = request.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const known = sessions.get(id);
      if (!known) return refuse(response, 404, 'unknown MCP session; initialize again');
      return known.transport.handleRequest(request, response);
    }
    if (request.method !== 'POST')
      return refuse(response, 400, 'a new session starts with an initialize POST');
    const server = options.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response);
  };

  const listener = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, (error as Error).message);
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.port ?? 0, host, () => resolve());
  });
  port = (listener.address() as AddressInfo).port;
  const shown = host === '::1' ? '[::1]' : host;
  return {
    url: `http://${shown}:${port}/mcp`,
    token,
    async close() {
      for (const { server } of [...sessions.values()]) await server.close().catch(() => {});
      sessions.clear();
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
