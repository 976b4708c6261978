// `spine serve`'s live follow (its server on a JSONL folder, over a real socket) when the followed
// log goes bad under it: the log gets a corrupt line, or its file is swapped for a directory, while
// the session is still running. The event stream must end cleanly with a `failed` event saying why
// (a dropped connection makes a browser reconnect from the page's first seq and append the same
// events again), the page's script must show that reason, and the server must keep serving.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createJsonlStore } from '@spine/session-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_SCRIPT } from '../src/serve/live.js';
import { createAuditServer } from '../src/serve/server.js';
import { sampleSessionEvents } from './fixtures.js';
import { tempFolder, writeSessionFile } from './run-cli.js';

/** One server-sent event as the browser's EventSource sees it. */
interface StreamedEvent {
  event: string;
  data: string;
}

/** The events of a `text/event-stream` body (comments, such as keep-alives, left out). */
function parseEvents(body: string): StreamedEvent[] {
  const events: StreamedEvent[] = [];
  for (const block of body.split('\n\n')) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice('event: '.length);
      else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** The followed stream of one request: what came so far, and how the response ended. */
interface Followed {
  status: number;
  body: () => string;
  /** Resolves once the response has ended, with whether it ended complete (not cut). */
  ended: Promise<{ complete: boolean }>;
}

function follow(url: URL): Promise<Followed> {
  return new Promise((resolve, reject) => {
    request(url, (response: IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      const ended = new Promise<{ complete: boolean }>((done) => {
        response.on('end', () => done({ complete: response.complete }));
        response.on('error', () => done({ complete: false }));
        response.on('aborted', () => done({ complete: false }));
      });
      resolve({ status: response.statusCode ?? 0, body: () => body, ended });
    })
      .on('error', reject)
      .end();
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Runs the page's live script on a stand-in for the DOM and EventSource, feeding it `events` as
 * the browser would, and returns what it did to the `#live` element.
 */
function runLiveScript(events: StreamedEvent[]): {
  dataset: Record<string, string>;
  inserted: string[];
  closed: boolean;
} {
  const inserted: string[] = [];
  const live = {
    dataset: { follow: '/s/x/events', last: '0' } as Record<string, string>,
    insertAdjacentHTML: (_where: string, html: string) => inserted.push(html),
  };
  const listeners = new Map<string, (message: { data: string }) => void>();
  const state = { closed: false };
  let source: { onmessage?: (message: { data: string }) => void } | undefined;
  class StandInEventSource {
    onmessage?: (message: { data: string }) => void;
    constructor() {
      source = this;
    }
    addEventListener(name: string, listener: (message: { data: string }) => void): void {
      listeners.set(name, listener);
    }
    close(): void {
      state.closed = true;
    }
  }
  new Function('document', 'EventSource', LIVE_SCRIPT)(
    { getElementById: () => live },
    StandInEventSource,
  );
  for (const event of events) {
    if (state.closed) break;
    if (event.event === 'message') source?.onmessage?.({ data: event.data });
    else listeners.get(event.event)?.({ data: event.data });
  }
  return { dataset: live.dataset, inserted, closed: state.closed };
}

describe('spine serve following a log that goes bad', { timeout: 120_000 }, () => {
  const dir = join(tempFolder('spine-follow-'), 'sessions');
  const token = randomBytes(24).toString('base64url');
  // The server `spine serve` runs, on a JSONL folder, listening on 127.0.0.1 like the command.
  let server: Server;
  const at = (path: string, query: Record<string, string> = {}): URL => {
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    url.searchParams.set('token', token);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    return url;
  };

  /** A running session: its log, and a lock file as a live writer leaves it. */
  function running(id: string): string {
    const path = writeSessionFile(dir, id, sampleSessionEvents(id));
    writeFileSync(`${path}.lock`, `${process.pid}\n`);
    return path;
  }

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    server = createAuditServer({
      store: createJsonlStore({ dir }),
      token,
      rows: async () => ({ rows: [], problems: [] }),
      sessionDir: dir,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Follows session `id` from its start, then breaks its log once every event has come. */
  async function followThenBreak(id: string, breakLog: () => void): Promise<StreamedEvent[]> {
    const count = sampleSessionEvents(id).length;
    const stream = await follow(at(`/s/${id}/events`, { after: '0' }));
    expect(stream.status).toBe(200);
    await until(() => parseEvents(stream.body()).length >= count, `the ${count} events of ${id}`);
    breakLog();
    const { complete } = await stream.ended;
    expect(complete, 'the stream ends as a whole response, not a dropped connection').toBe(true);
    return parseEvents(stream.body());
  }

  it('ends the stream of a log that gets a corrupt line with a failed event naming it', async () => {
    const path = running('corrupt');
    const events = await followThenBreak('corrupt', () => {
      // A whole line with a seq gap: not a torn write, so the follow cannot wait it out.
      appendFileSync(
        path,
        `${JSON.stringify({ seq: 99, type: 'turn/start', at: '2026-11-30T09:00:00.000Z', turn: 2, body: {} })}\n`,
      );
    });
    const kinds = events.map((event) => event.event);
    expect(kinds.filter((kind) => kind === 'message').length).toBe(
      sampleSessionEvents('corrupt').length,
    );
    expect(kinds.at(-1)).toBe('failed');
    expect(kinds).not.toContain('end');
    const failed = JSON.parse(events.at(-1)?.data ?? '{}') as { html: string };
    expect(failed.html).toMatch(
      /^<p class="bad" id="live-error">The live view stopped: corrupt\.jsonl:\d+: [^<]*\[SESSION_CORRUPT\]<\/p>$/,
    );
    expect(failed.html).not.toContain(dir);

    // The page shows it, and stops listening instead of reconnecting.
    const page = runLiveScript(events);
    expect(page.closed).toBe(true);
    expect(page.dataset.ended).toBe('failed');
    expect(page.inserted.at(-1)).toBe(failed.html);
  });

  it('ends the stream of a log swapped for a directory with the file system reason', async () => {
    const path = running('swapped');
    const events = await followThenBreak('swapped', () => {
      rmSync(path);
      mkdirSync(path);
    });
    expect(events.at(-1)?.event).toBe('failed');
    const failed = JSON.parse(events.at(-1)?.data ?? '{}') as { html: string };
    expect(failed.html).toContain('The live view stopped: ');
    expect(failed.html).toContain('it is a directory (EISDIR) [EISDIR]');
    expect(failed.html).not.toContain(dir);
  });

  it('still ends the follow of a session that closes normally with end, and keeps serving', async () => {
    const path = running('closing');
    const events = await followThenBreak('closing', () => rmSync(`${path}.lock`));
    expect(events.at(-1)?.event).toBe('end');
    const shown = runLiveScript(events);
    expect(shown.dataset.ended).toBe('true');
    expect(shown.inserted.at(-1)).toContain('The session is closed.');

    // The server keeps serving: the session's page, and the logs that went bad as error pages.
    const served = await follow(at('/s/closing'));
    expect(served.status).toBe(200);
    await served.ended;
    expect(served.body()).toContain('id="timeline"');
    const corrupt = await follow(at('/s/corrupt'));
    expect(corrupt.status).toBe(422);
    await corrupt.ended;
  });

  it('serves every id the JSONL store accepts (up to 200 characters), and no longer one', async () => {
    const id = `s${'1'.repeat(199)}`;
    writeSessionFile(dir, id, sampleSessionEvents(id));
    const served = await follow(at(`/s/${id}`));
    expect(served.status).toBe(200);
    await served.ended;
    expect(served.body()).toContain('id="timeline"');
    const tooLong = await follow(at(`/s/${id}1`));
    expect(tooLong.status).toBe(404);
    await tooLong.ended;
  });
});
