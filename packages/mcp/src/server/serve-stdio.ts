import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpToolServer } from './tool-server.js';

/** Options of {@link startMcpStdioServer}. */
export interface McpStdioServerOptions {
  /** The MCP server to connect (e.g. from `createMcpToolServer`). */
  server: McpToolServer;
  /** Where requests arrive (default `process.stdin`). */
  stdin?: Readable;
  /** Where responses go (default `process.stdout`): nothing else may write there. */
  stdout?: Writable;
}

/** A server connected over stdio. */
export interface McpStdioServer {
  /** Resolves when the client closes its end (stdin ends) or the server is closed. */
  closed: Promise<void>;
  /** Closes the server and the transport. */
  close(): Promise<void>;
}

/**
 * Serves one MCP client over stdio (newline-delimited JSON-RPC), until the client closes stdin.
 *
 * @example
 * ```ts
 * const stdio = await startMcpStdioServer({ server: createMcpToolServer({ scheduler }) });
 * await stdio.closed;
 * ```
 */
export async function startMcpStdioServer(options: McpStdioServerOptions): Promise<McpStdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  options.server.onclose = () => resolveClosed();
  stdin.once('end', () => resolveClosed());
  stdin.once('close', () => resolveClosed());
  await options.server.connect(transport);
  return {
    closed,
    async close() {
      await options.server.close();
      resolveClosed();
    },
  };
}
