import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running loopback HTTP server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  baseUrl: string;
  /** The port the server listens on. */
  port: number;
  /** Closes the server and destroys every open connection (stalled streams included). */
  close(): Promise<void>;
}

/** Handles one request; `body` is the whole request body as UTF-8 text. */
export type LoopbackHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
) => void | Promise<void>;

/**
 * Starts a `node:http` server on 127.0.0.1 (a free port) that reads each request body and
 * hands it to `handler`. Used by every fault-injection test: the handler decides exactly which
 * bytes go on the wire and when.
 *
 * @example
 * ```ts
 * const server = await startSseServer((req, res) => { res.end('data: [DONE]\n\n'); });
 * await server.close();
 * ```
 */
export async function startSseServer(handler: LoopbackHandler): Promise<LoopbackServer> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      Promise.resolve()
        .then(() => handler(request, response, body))
        .catch((error: unknown) => {
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
          response.end(`loopback handler failed: ${String(error)}`);
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Formats one SSE event: an optional `event:` line, one `data:` line per payload line, a blank line. */
export function sseFrame(data: string, event?: string): string {
  const head = event === undefined ? '' : `event: ${event}\n`;
  return `${head}${data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

/** Writes the SSE response head (200, `text/event-stream`, no caching). */
export function writeSseHead(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  response.flushHeaders();
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Writes `text` in pieces of `pieceSize` bytes, waiting `delayMs` between writes so each piece
 * leaves in its own TCP segment (a frame, a line, even a UTF-8 character split across reads).
 */
export async function writeInPieces(
  response: ServerResponse,
  text: string,
  options: { pieceSize: number; delayMs?: number },
): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += options.pieceSize) {
    if (response.destroyed) return;
    response.write(bytes.subarray(offset, offset + options.pieceSize));
    await sleep(options.delayMs ?? 2);
  }
}
