import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * An OAuth client provider the manager can finish a browser authorization with: an object that
 * implements the SDK's `OAuthClientProvider` (`@modelcontextprotocol/sdk/client/auth.js`) plus
 * `waitForAuthorizationCode`. Typed structurally here so that Spine's public types do not pull in the
 * SDK's transport types, which need the DOM library (`HeadersInit`).
 */
export interface McpOAuthProvider {
  /** Where the authorization server sends the person back. */
  readonly redirectUrl: string | URL | undefined;
  /** Resolves with the authorization code once the person approved (the redirect arrived). */
  waitForAuthorizationCode(): Promise<string>;
  /** The rest of the SDK's `OAuthClientProvider` methods. */
  readonly [member: string]: unknown;
}

/** Options of {@link createFileOAuthProvider}. */
export interface FileOAuthProviderOptions {
  /**
   * The JSON file holding the client registration, tokens and PKCE verifier (mode 0600). Keep it
   * in the user's configuration folder: never in the workspace or next to session logs.
   */
  file: string;
  /** Where the authorization server sends the person back (a loopback callback). */
  redirectUrl: string;
  /** The client name registered with the server. Default `Spine`. */
  clientName?: string;
  /**
   * Shows the authorization URL to the person (or follows it in tests) and resolves with the
   * `code` the redirect carried.
   */
  authorize: (authorizationUrl: URL) => Promise<string>;
}

interface Stored {
  clientInformation?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
}

/**
 * An OAuth client provider for the SDK's client auth that keeps its state in one file with
 * owner-only permissions: tokens never reach the session log or the workspace. The SDK discovers
 * the authorization server, registers the client, and calls `redirectToAuthorization`; the
 * manager then waits for the code (`waitForAuthorizationCode`) and finishes the exchange.
 *
 * @example
 * ```ts
 * const provider = createFileOAuthProvider({
 *   file: join(configHome, 'mcp-oauth', 'github.json'),
 *   redirectUrl: 'http://127.0.0.1:8765/callback',
 *   authorize: async (url) => waitForCallback(url),
 * });
 * ```
 */
export function createFileOAuthProvider(options: FileOAuthProviderOptions): McpOAuthProvider {
  const read = (): Stored =>
    existsSync(options.file) ? (JSON.parse(readFileSync(options.file, 'utf8')) as Stored) : {};
  const write = (change: Partial<Stored>): void => {
    mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
    const next = { ...read(), ...change };
    const temporary = `${options.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, options.file);
  };
  let pending: Promise<string> | undefined;
  const metadata: OAuthClientMetadata = {
    client_name: options.clientName ?? 'Spine',
    redirect_uris: [options.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  const provider: OAuthClientProvider & { waitForAuthorizationCode(): Promise<string> } = {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata() {
      return metadata;
    },
    // A registration made for another redirect URL (another callback port) is registered again.
    clientInformation: () => {
      const stored = read().clientInformation as { redirect_uris?: string[] } | undefined;
      if (stored?.redirect_uris && !stored.redirect_uris.includes(options.redirectUrl))
        return undefined;
      return stored as OAuthClientInformationMixed | undefined;
    },
    saveClientInformation: (clientInformation) => write({ clientInformation }),
    tokens: () => read().tokens,
    saveTokens: (tokens) => write({ tokens }),
    redirectToAuthorization(authorizationUrl) {
      pending = options.authorize(authorizationUrl);
      // Handled by waitForAuthorizationCode; keep an early rejection from being unhandled.
      pending.catch(() => undefined);
    },
    saveCodeVerifier: (codeVerifier) => write({ codeVerifier }),
    codeVerifier() {
      const verifier = read().codeVerifier;
      if (!verifier) throw new Error('no PKCE code verifier saved; start the authorization again');
      return verifier;
    },
    invalidateCredentials(scope) {
      if (scope === 'all')
        write({ clientInformation: undefined, tokens: undefined, codeVerifier: undefined });
      else if (scope === 'tokens') write({ tokens: undefined });
      else if (scope === 'client') write({ clientInformation: undefined });
      else if (scope === 'verifier') write({ codeVerifier: undefined });
    },
    waitForAuthorizationCode() {
      if (!pending) return Promise.reject(new Error('no authorization was started'));
      return pending;
    },
  };
  return provider as unknown as McpOAuthProvider;
}
