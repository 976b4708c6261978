// `spine serve`'s HTTP server: 127.0.0.1 only, every request must carry the random token the
// command printed, and it must come from loopback with a loopback Host (no DNS rebinding).
// Read-only: GET and HEAD, nothing else; no endpoint changes a session.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { basename, join } from 'node:path';
import { type SessionEvent, type SessionStore, SpineError } from '@spine/protocol';
import { type ChunkWriter, createChunkWriter, streamSink } from '@spine/tui';
import { inertLine } from '../html/escape.js';
import { writeSessionHtml } from '../html/export-html.js';
import { cspHash, PAGE_CSS, pageFoot, pageHead } from '../html/page.js';
import { TimelineRenderer } from '../html/timeline.js';
import { systemReason } from '../system-reasons.js';
import { followJsonl } from './follow-jsonl.js';
import { type FollowingStore, followPostgres } from './follow-postgres.js';
import { LIVE_SCRIPT } from './live.js';
import { type LinkFor, listPage, type SessionList, writeSessionPage } from './pages.js';

/** Options of {@link createAuditServer}. */
export interface AuditServerOptions {
  store: SessionStore;
  /** The random token every request must carry (`?token=`). */
  token: string;
  /** The session rows of the list, newest first, and the files that cannot be opened. */
  rows: () => Promise<SessionList>;
  /** The JSONL folder, when the store is one (followed by polling; PostgreSQL has a follower). */
  sessionDir?: string;
  /** Whether a writer holds session `id` now (a store with a follower: when its follow ends). */
  leased?: (id: string) => Promise<boolean>;
}

// The ids the JSONL store accepts (a session it lists must open here too: up to 200 characters).
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const HEADERS = {
  'content-security-policy': `default-src 'none'; style-src ${cspHash(PAGE_CSS)}; script-src ${cspHash(LIVE_SCRIPT)}; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...HEADERS });
  response.end(`${message}\n`);
}

/** Characters of a page gathered before its status is sent: a failure before then is a 4xx/5xx. */
const HELD_CHARS = 1024 * 1024;

/**
 * The status and the message of an error met while reading a session, with the session folder
 * left out (the page names the file, not where the machine keeps it).
 */
function failureOf(error: unknown, sessionDir?: string): [number, string] {
  // The store's refusal of a file (StoreUnavailableError) is told like the system error it
  // carries: by the file's name and the system's reason, not the folder's path.
  const refused = error as { systemCode?: unknown; path?: unknown };
  if (SpineError.isInstance(error) && typeof refused.systemCode === 'string')
    return systemFailure(
      refused.systemCode,
      typeof refused.path === 'string' ? refused.path : undefined,
    );
  if (SpineError.isInstance(error)) {
    const status = error.code === 'SESSION_NOT_FOUND' ? 404 : 422;
    const message = sessionDir ? error.message.split(`${sessionDir}/`).join('') : error.message;
    return [status, `${message} [${error.code}]`];
  }
  const system = error as NodeJS.ErrnoException;
  if (error instanceof Error && typeof system.code === 'string' && /^E[A-Z]+$/.test(system.code))
    return systemFailure(system.code, system.path);
  return [500, 'spine serve failed to render this page; `spine show` on the session says why'];
}

/** A file the system refused: 403 for permissions, else 422, naming the file only. */
function systemFailure(code: string, path: string | undefined): [number, string] {
  const file = path ? ` ${basename(path)}` : '';
  const status = code === 'EACCES' || code === 'EPERM' ? 403 : 422;
  return [status, `cannot read${file}: ${systemReason(code)} (${code}) [${code}]`];
}

/**
 * The server-sent event that ends a live follow which cannot go on (`event: failed`), its HTML
 * saying why, like the error of a page.
 */
function followFailure(error: unknown, sessionDir?: string): string {
  const [, message] = failureOf(error, sessionDir);
  const html = `<p class="bad" id="live-error">The live view stopped: ${inertLine(message)}</p>`;
  return `event: failed\ndata: ${JSON.stringify({ html })}\n\n`;
}

/** An HTML page saying why a session page cannot be shown, with the headers of every page. */
function errorPage(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...HEADERS });
  response.end(
    `${pageHead({ title: 'Spine: cannot show this session' })}<header class="session"><h1>Cannot show this session</h1></header><p class="bad" id="error">${inertLine(message)}</p>${pageFoot()}`,
  );
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Why a request is refused, or undefined when it may be served. */
function refusal(request: IncomingMessage, url: URL, token: string): [number, string] | undefined {
  if (!LOOPBACK.has(request.socket.remoteAddress ?? ''))
    return [403, 'spine serve answers loopback clients only'];
  const host = (request.headers.host ?? '').replace(/:\d+$/, '');
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]')
    return [403, 'spine serve answers requests for 127.0.0.1 only'];
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return [405, 'spine serve is read-only: GET only'];
  if (!tokenMatches(url.searchParams.get('token'), token))
    return [401, 'open the URL spine serve printed: it carries the access token'];
  return undefined;
}

const positive = (value: string | null, fallback: number): number =>
  value !== null && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : fallback;

/** Creates the server (not listening: call `listen(port, '127.0.0.1')`). */
export function createAuditServer(options: AuditServerOptions): Server {
  const { store, token } = options;
  const link: LinkFor = (path, query = {}) => {
    const params = new URLSearchParams({ token });
    for (const [key, value] of Object.entries(query)) params.set(key, String(value));
    return `${path}?${params.toString()}`;
  };
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const refused = refusal(request, url, token);
    if (refused) return refuse(response, ...refused);
    route(url, request, response).catch((error: unknown) => {
      if (!response.headersSent) errorPage(response, ...failureOf(error, options.sessionDir));
      else response.destroy();
    });
  });

  async function route(
    url: URL,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const html = { 'content-type': 'text/html; charset=utf-8', ...HEADERS };
    if (url.pathname === '/') {
      const { rows, problems } = await options.rows();
      response.writeHead(200, html);
      response.end(listPage(rows, positive(url.searchParams.get('page'), 1), link, problems));
      return;
    }
    const match = /^\/s\/([^/]+)(\/audit|\/events)?$/.exec(url.pathname);
    const id = match ? decodeURIComponent(match[1] as string) : '';
    if (!match || !ID.test(id)) return refuse(response, 404, 'no such page');
    if (!(await store.exists(id))) return refuse(response, 404, `no session ${id}`);
    if (match[2] === '/events')
      return events(id, positive(url.searchParams.get('after'), 0), request, response);
    // The page is held until it is HELD_CHARS long: a log that cannot be read (corrupt, a
    // directory, no permission, empty) then gets an error page and a 4xx/5xx status instead of a
    // dropped connection. Past that, the page says where it stopped and why.
    const sink = streamSink(response);
    const writer = createChunkWriter((chunk) => {
      if (!response.headersSent) response.writeHead(200, html);
      return sink(chunk);
    }, HELD_CHARS);
    try {
      await writePage(id, match[2], url, writer);
    } catch (error) {
      const [status, message] = failureOf(error, options.sessionDir);
      if (!response.headersSent) return errorPage(response, status, message);
      await writer.write(
        `<p class="bad" id="error">The page stops here: ${inertLine(message)}</p>${pageFoot()}`,
      );
    }
    if (!response.headersSent) response.writeHead(200, html);
    await writer.end();
    response.end();
  }

  async function writePage(
    id: string,
    kind: string | undefined,
    url: URL,
    writer: ChunkWriter,
  ): Promise<void> {
    if (kind === '/audit') {
      const childLink = (child: string) => link(`/s/${encodeURIComponent(child)}/audit`);
      const logPath = options.sessionDir ? join(options.sessionDir, `${id}.jsonl`) : undefined;
      await writeSessionHtml(store, id, writer, { childLink, ...(logPath ? { logPath } : {}) });
    } else
      await writeSessionPage(store, id, positive(url.searchParams.get('from'), 1), writer, link);
  }

  async function events(
    id: string,
    after: number,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...HEADERS });
    const controller = new AbortController();
    request.on('close', () => controller.abort());
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), 15_000);
    const timeline = new TimelineRenderer(
      (child) => link(`/s/${encodeURIComponent(child)}`),
      '<p class="mute">Open the full audit to see this request rebuilt and verified.</p>',
    );
    const followed = followOf(id, after, controller.signal);
    try {
      for await (const event of followed) {
        response.write(
          `data: ${JSON.stringify({ seq: event.seq, html: timeline.render(event) })}\n\n`,
        );
      }
      if (!controller.signal.aborted) response.write('event: end\ndata: {}\n\n');
    } catch (error) {
      // The log turned unreadable or corrupt while followed. The stream ends cleanly with the
      // reason, which the page shows: a dropped connection would make the browser reconnect
      // from the page's first seq, append the same events again and fail again, forever.
      if (!controller.signal.aborted) response.write(followFailure(error, options.sessionDir));
    } finally {
      clearInterval(heartbeat);
      response.end();
    }
  }

  function followOf(id: string, after: number, signal: AbortSignal): AsyncIterable<SessionEvent> {
    const follower = store as FollowingStore;
    if (typeof follower.follow === 'function') {
      const leased = options.leased ?? (async () => true);
      return followPostgres(follower, id, { afterSeq: after, signal, leased: () => leased(id) });
    }
    return followJsonl(store, options.sessionDir ?? '.', id, { afterSeq: after, signal });
  }
}
