import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createFileOAuthProvider, type McpOAuthProvider } from './oauth-file.js';

/** Options of {@link startLoopbackOAuth}. */
export interface LoopbackOAuthOptions {
  /** The folder holding one token file per server (`<dir>/<server>.json`, owner-only). */
  dir: string;
  /**
   * Shows a server's authorization URL to the person, who opens it in a browser; the redirect to
   * the loopback listener finishes the sign-in.
   */
  onAuthorizationUrl: (server: string, authorizationUrl: URL) => void;
  /** The client name registered with each server. Default `Spine`. */
  clientName?: string;
}

/** OAuth for a session's remote MCP servers: one loopback callback, tokens per server on disk. */
export interface LoopbackOAuth {
  /** The provider of one server, for `McpManagerOptions.authProvider`. */
  providerFor(server: string): McpOAuthProvider;
  /** Stops the listener; sign-ins still waiting fail. */
  close(): void;
}

/**
 * Starts a listener on 127.0.0.1 (a free port) that receives authorization redirects
 * (`http://127.0.0.1:<port>/callback/<server>`) and builds each remote server's file-backed
 * provider ({@link createFileOAuthProvider}). A redirect with `code` finishes that server's
 * sign-in; one without (the person declined) fails it. Tokens live in `dir`: keep it in the
 * user's configuration folder, never in the workspace or next to session logs.
 *
 * @example
 * ```ts
 * const oauth = await startLoopbackOAuth({
 *   dir: join(homedir(), '.config', 'my-agent', 'mcp-oauth'),
 *   onAuthorizationUrl: (server, url) => console.error(`${server}: sign in at ${url.href}`),
 * });
 * const manager = createMcpManager({ servers, cwd, authProvider: oauth.providerFor });
 * ```
 */
export async function startLoopbackOAuth(options: LoopbackOAuthOptions): Promise<LoopbackOAuth> {
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
        .end('Signed in; you can close this tab and return to the agent.\n');
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
        ...(options.clientName ? { clientName: options.clientName } : {}),
        authorize: (authorizationUrl) => {
          const code = new Promise<string>((resolve, reject) =>
            waiting.set(name, { resolve, reject }),
          );
          options.onAuthorizationUrl(name, authorizationUrl);
          return code;
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
