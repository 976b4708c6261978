// `session/list`: the sessions of the store, newest first, a page at a time. The cursor names the
// last session of the page (its time and id), so a session written between two pages neither
// shifts the next page nor repeats one already sent; a cursor Spine did not make is refused.
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { ListSessionsResponse, SessionInfo } from '@agentclientprotocol/sdk';
import { currentSessionTitle, type SpineConfig, storeFor } from '@spine/harness';
import type { SessionSummary } from '@spine/protocol';

/** Sessions per `session/list` page. */
export const LIST_PAGE_SIZE = 50;

/** Where a page starts: after the session with this time and id (newest-first order). */
interface Cursor {
  at: string;
  id: string;
}

/** A cursor that does not decode to one Spine made. */
export class BadCursorError extends Error {
  constructor() {
    super('cursor is not one this agent returned; list again without a cursor');
    this.name = 'BadCursorError';
  }
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  try {
    if (!/^[A-Za-z0-9_-]{1,2048}$/.test(text)) throw new BadCursorError();
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string'
    )
      return { at: value[0], id: value[1] };
  } catch {
    // Falls through to the typed error.
  }
  throw new BadCursorError();
}

/** True when `path` is a directory the agent can see (false when missing, a file or unreadable). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const timeOf = (summary: SessionSummary): string =>
  summary.updatedAt ?? summary.header.createdAt ?? '';

/** Newest first; equal times by id, descending, so the order is total. */
function newerFirst(a: Cursor, b: Cursor): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * One page of the sessions in `config`'s store that name their workspace, only those started in
 * `cwd` when it is given.
 *
 * @throws a {@link BadCursorError} when `cursor` is not one a previous page returned.
 */
export async function listSessions(
  config: SpineConfig,
  request: { cwd?: string | null; cursor?: string | null },
  pageSize = LIST_PAGE_SIZE,
): Promise<ListSessionsResponse> {
  const after = request.cursor ? decodeCursor(request.cursor) : undefined;
  const summaries = (await storeFor(config).list())
    // A session that names no workspace cannot be loaded into one: it is not listed.
    .filter((summary) => isAbsolute(summary.header.cwd ?? ''))
    .filter((summary) => !request.cwd || summary.header.cwd === request.cwd)
    .map((summary) => ({ summary, key: { at: timeOf(summary), id: summary.id } }))
    .filter((entry) => !after || newerFirst(after, entry.key) < 0)
    .sort((a, b) => newerFirst(a.key, b.key));
  const page = summaries.slice(0, pageSize);
  const last = page.at(-1);
  return {
    sessions: page.map(({ summary }) => sessionInfo(config, summary)),
    ...(last && summaries.length > pageSize ? { nextCursor: encodeCursor(last.key) } : {}),
  };
}

function sessionInfo(config: SpineConfig, summary: SessionSummary): SessionInfo {
  const title = currentSessionTitle(config.sessionDir, summary);
  const parent = summary.header.parent?.sessionId;
  return {
    sessionId: summary.id,
    cwd: summary.header.cwd as string,
    ...(title ? { title } : {}),
    ...(summary.updatedAt ? { updatedAt: summary.updatedAt } : {}),
    // A subagent's session names its parent, so a client can show the tree.
    ...(parent ? { _meta: { spine: { parent } } } : {}),
  };
}
