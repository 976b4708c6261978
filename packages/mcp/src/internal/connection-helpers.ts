import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

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
