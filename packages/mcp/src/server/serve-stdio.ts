import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { installBoundedReader, MAX_MESSAGE_BYTES } from '../internal/bounded-reader.js';
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
  // The SDK's reader closes the connection (and so the server, silently) on a line over 10 MiB;
  // this one drops the line, answers its request with an error, and keeps serving.
  // A line without a visible id (a notification) is dropped; the transport reports it as an error.
  installBoundedReader(transport, MAX_MESSAGE_BYTES, (id, total) => {
    if (id === undefined) return;
    const message = `Request too large: ${total} bytes, over the ${MAX_MESSAGE_BYTES}-byte limit of one MCP message; it was not read. Send a smaller request.`;
    void transport.send({ jsonrpc: '2.0', id, error: { code: -32600, message } }).catch(() => {});
  });
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
