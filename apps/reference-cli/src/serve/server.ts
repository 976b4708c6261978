// `spine serve`'s HTTP server: 127.0.0.1 only, every request must carry the random token the
// command printed, and it must come from loopback with a loopback Host (no DNS rebinding).
// Read-only: GET and HEAD, nothing else; no endpoint changes a session.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SessionEvent, SessionStore } from '@spine/protocol';
import { createChunkWriter, streamSink } from '@spine/tui';
import { writeSessionHtml } from '../html/export-html.js';
import { cspHash, PAGE_CSS } from '../html/page.js';
import { TimelineRenderer } from '../html/timeline.js';
import { followJsonl } from './follow-jsonl.js';
import { type FollowingStore, followPostgres } from './follow-postgres.js';
import { LIVE_SCRIPT } from './live.js';
import { type LinkFor, listPage, type SessionRow, writeSessionPage } from './pages.js';

/** Options of {@link createAuditServer}. */
export interface AuditServerOptions {
  store: SessionStore;
  /** The random token every request must carry (`?token=`). */
  token: string;
  /** The session rows of the list, newest first. */
  rows: () => Promise<SessionRow[]>;
  /** The JSONL folder, when the store is one (followed by polling; PostgreSQL has a follower). */
  sessionDir?: string;
  /** Whether a writer holds session `id` now (a store with a follower: when its follow ends). */
  leased?: (id: string) => Promise<boolean>;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
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
      if (!response.headersSent)
        refuse(response, 500, error instanceof Error ? error.message : String(error));
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
      const rows = await options.rows();
      response.writeHead(200, html);
      response.end(listPage(rows, positive(url.searchParams.get('page'), 1), link));
      return;
    }
    const match = /^\/s\/([^/]+)(\/audit|\/events)?$/.exec(url.pathname);
    const id = match ? decodeURIComponent(match[1] as string) : '';
    if (!match || !ID.test(id)) return refuse(response, 404, 'no such page');
    if (!(await store.exists(id))) return refuse(response, 404, `no session ${id}`);
    if (match[2] === '/events')
      return events(id, positive(url.searchParams.get('after'), 0), request, response);
    response.writeHead(200, html);
    const writer = createChunkWriter(streamSink(response));
    if (match[2] === '/audit') {
      const childLink = (child: string) => link(`/s/${encodeURIComponent(child)}/audit`);
      await writeSessionHtml(store, id, writer, { childLink });
    } else
      await writeSessionPage(store, id, positive(url.searchParams.get('from'), 1), writer, link);
    await writer.end();
    response.end();
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
