import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { McpOAuthProvider } from '@spine/mcp';

/** OAuth for the session's remote MCP servers: one loopback callback, tokens per server on disk. */
export interface CliOAuth {
  /** The provider of one server (tokens in `<dir>/<server>.json`, owner-only). */
  providerFor(server: string): McpOAuthProvider;
  /** Stops the callback listener. */
  close(): void;
}

/**
 * Starts the loopback listener that receives authorization redirects
 * (`http://127.0.0.1:<port>/callback/<server>`) and builds each remote server's file-backed
 * provider. The person opens the printed URL; the redirect's `code` finishes the sign-in. Tokens
 * live in `dir` (under the user's configuration folder), never in the workspace or the log.
 */
export async function startCliOAuth(options: {
  dir: string;
  print: (text: string) => void;
}): Promise<CliOAuth> {
  const { createFileOAuthProvider } = await import('@spine/mcp');
  const waiting = new Map<
    string,
    { resolve: (code: string) => void; reject: (error: Error) => void }
  >();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const name = decodeURIComponent(url.pathname.replace(/^\/callback\//, ''));
    const pending = waiting.get(name);
    if (!url.pathname.startsWith('/callback/') || !pending) {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('No sign-in is waiting here.\n');
      return;
    }
    waiting.delete(name);
    const code = url.searchParams.get('code');
    if (code) {
      pending.resolve(code);
      response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end('Signed in; you can close this tab and return to spine.\n');
    } else {
      pending.reject(
        new Error(`the sign-in was not completed (${url.searchParams.get('error') ?? 'no code'})`),
      );
      response
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('The sign-in was not completed.\n');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    providerFor: (name) =>
      createFileOAuthProvider({
        file: join(options.dir, `${encodeURIComponent(name)}.json`),
        redirectUrl: `http://127.0.0.1:${port}/callback/${encodeURIComponent(name)}`,
        authorize: (authorizationUrl) => {
          options.print(`MCP server ${name} asks you to sign in: open ${authorizationUrl.href}`);
          return new Promise<string>((resolve, reject) => waiting.set(name, { resolve, reject }));
        },
      }),
    close: () => {
      for (const pending of waiting.values())
        pending.reject(new Error('the session ended before the sign-in'));
      waiting.clear();
      server.close();
    },
  };
}
