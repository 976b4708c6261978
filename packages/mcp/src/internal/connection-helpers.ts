import {
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpOAuthProvider } from '../oauth-file.js';

/** Races `promise` against a timer; `onTimeout` makes the rejection. */
export function wait<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Every page of a paginated list (at most 100 pages, against a server that never stops). */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let index = 0; index < 100; index++) {
    const result = await page(cursor);
    out.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return out;
}

/** The error a server gets for an enabled request kind nothing answers. */
export function refusal(what: string): McpError {
  return new McpError(
    ErrorCode.InvalidRequest,
    `Spine cannot answer ${what} requests here: this front end has no one to answer them (they are enabled for the server, but nothing is attached that answers them)`,
  );
}

/**
 * After a 401 with an OAuth provider that can wait for the person's approval: waits for the code
 * and exchanges it on `transport`. False when this failure is not one it can finish.
 */
export async function finishAuthorization(
  provider: OAuthClientProvider | undefined,
  error: unknown,
  transport: Transport,
): Promise<boolean> {
  const waiting = provider as McpOAuthProvider | undefined;
  if (!(error instanceof UnauthorizedError) || !waiting?.waitForAuthorizationCode) return false;
  const finish = (transport as { finishAuth?: (code: string) => Promise<void> }).finishAuth;
  if (!finish) return false;
  const code = await waiting.waitForAuthorizationCode();
  await finish.call(transport, code);
  return true;
}
