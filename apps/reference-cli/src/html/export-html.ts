// A session as one self-contained HTML page, written while the log streams: replay rebuilds and
// verifies each request as its header passes, and the timeline renders each event right after
// replay has seen it. Held: the surface replay needs, the previous rebuilt request, one verdict
// per request (for the verification table) and the subagent list. Without a `childLink`, each
// subagent's session (and theirs, depth first) follows in the same file, one at a time, so a
// single exported file links to every child it names.

import { dirname, join } from 'node:path';
import { type ReplayedRequest, replayStream } from '@spine/agent-loop';
import type { SessionEvent, SessionRange, SessionStore } from '@spine/protocol';
import { Session } from '@spine/session-log';
import type { ChunkWriter } from '@spine/tui';

import { chainVerdict } from './chain.js';
import { inertLine } from './escape.js';
import { pageFoot, pageHead } from './page.js';
import { type RebuiltEntry, verdictBadge } from './request-view.js';
import { type ChildLink, childrenHtml, TimelineRenderer } from './timeline.js';
import { TotalsFold } from './totals.js';

/** Options of {@link writeSessionHtml}. */
export interface SessionHtmlOptions {
  /**
   * How a subagent's session is linked (`spine serve`: its own page). Default: each child's
   * session is written into this page after the parent's, and linked as `#session-<id>`.
   */
  childLink?: ChildLink;
  /** The one inline script of the page and what it may connect to (`spine serve`). */
  script?: { source: string; connect: string };
  /** HTML placed right after the header (paging links under `spine serve`). */
  banner?: string;
  /**
   * The JSONL file of session `id`: its hash chain is checked (as `spine verify` does) and the
   * verdict shown at the top of the page; a subagent's file is looked for beside it. Without it
   * (a PostgreSQL store) the page says the chain was not checked.
   */
  logPath?: string;
}

type Streamable = Session & { readEvents(range: SessionRange): AsyncIterable<SessionEvent> };

/** Writes the page of session `id` in `store` to `writer` (not ended: the caller ends it). */
export async function writeSessionHtml(
  store: SessionStore,
  id: string,
  writer: ChunkWriter,
  options: SessionHtmlOptions = {},
): Promise<void> {
  const embed = options.childLink === undefined;
  const childLink = options.childLink ?? embeddedLink;
  await writer.write(pageHead({ title: `Spine session ${id}`, ...scriptOf(options) }));
  if (embed) await writer.write(`<div id="${embeddedLink(id).slice(1)}"></div>`);
  const chainOf = (session: string): string | undefined =>
    options.logPath === undefined
      ? undefined
      : session === id
        ? options.logPath
        : join(dirname(options.logPath), `${session}.jsonl`);
  const children = await writeSessionBody(store, id, writer, {
    childLink,
    banner: options.banner,
    chainPath: chainOf(id),
  });
  // Depth first, each child once (a log naming a session twice, or itself, is hostile input).
  const queue = embed ? [...children] : [];
  const seen = new Set([id]);
  while (queue.length > 0) {
    const child = queue.shift() as string;
    if (seen.has(child)) continue;
    seen.add(child);
    queue.unshift(...(await writeEmbeddedChild(store, child, writer, chainOf(child))));
  }
  await writer.write(pageFoot(options.script?.source));
}

/** Where an embedded child session starts in the page. */
function embeddedLink(child: string): string {
  return `#session-${child.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/**
 * Writes child session `id` as a section of the page; its anchors get a prefix of their own so
 * `#seq-N` of the parent and of each child stay distinct. Returns the child's own children.
 */
async function writeEmbeddedChild(
  store: SessionStore,
  id: string,
  writer: ChunkWriter,
  chainPath: string | undefined,
): Promise<string[]> {
  const anchor = embeddedLink(id).slice(1);
  const name = inertLine(id);
  await writer.write(
    `<section class="child-session" id="${anchor}"><h2>Subagent session <code>${name}</code></h2><p class="mute">Included in this file: the subagent's own log, its requests rebuilt and verified like the parent's.</p>\n`,
  );
  if (!(await store.exists(id))) {
    await writer.write(
      '<p class="bad">This session is not in the store the export read.</p></section>\n',
    );
    return [];
  }
  // Every anchor the child writes, and its in-page links but those to other sessions.
  const prefix = `${anchor}-`;
  const prefixed: ChunkWriter = {
    end: () => writer.end(),
    write: (text: string) =>
      writer.write(
        text
          .replace(/ id="/g, ` id="${prefix}`)
          .replace(/ href="#(?!session-)/g, ` href="#${prefix}`),
      ),
  };
  const children = await writeSessionBody(store, id, prefixed, {
    childLink: embeddedLink,
    chainPath,
  });
  await writer.write('</section>\n');
  return children;
}

/** Writes the timeline, totals, verification and subagents of `id`; returns the child ids. */
async function writeSessionBody(
  store: SessionStore,
  id: string,
  writer: ChunkWriter,
  body: { childLink: ChildLink; banner?: string | undefined; chainPath?: string | undefined },
): Promise<string[]> {
  const { childLink, banner = '' } = body;
  // The hash chain first, before anything of the log is shown: an altered log is said at the top.
  const chain = chainVerdict(body.chainPath);
  await writer.write(chain.html);
  const timeline = new TimelineRenderer(childLink);
  const totals = new TotalsFold();
  const session = (await Session.open({
    store,
    id,
    readOnly: true,
    history: 'lazy',
  })) as Streamable;
  let rebuilt: RebuiltEntry | undefined;
  let opened = false;
  // The events replay reads pass through here: once replay has taken an event (and called
  // onRequest for a header), the generator resumes and the timeline renders it.
  const readEvents = async function* (range: SessionRange): AsyncIterable<SessionEvent> {
    for await (const event of session.readEvents(range)) {
      yield event;
      totals.add(event);
      const entry = rebuilt?.verdict.seq === event.seq ? rebuilt : undefined;
      rebuilt = undefined;
      await writer.write(timeline.render(event, entry));
      if (event.type === 'session/header' && !opened) {
        opened = true;
        await writer.write(`${banner}<section id="timeline">\n`);
      }
    }
    await writer.write(`${timeline.finish()}${opened ? '</section>' : ''}\n`);
  };
  const streamed = new Proxy(session, {
    get(target, property) {
      if (property === 'readEvents') return readEvents;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  try {
    const report = await replayStream(streamed, {
      onRequest: (request, verdict) => {
        rebuilt = { request, verdict };
      },
    });
    await writer.write(totals.html());
    await writeVerification(writer, report.requests, report.ok, chain.summary);
    await writer.write(childrenHtml(timeline.children, childLink));
  } finally {
    await session.close();
  }
  return timeline.children.map((child) => child.sessionId);
}

function scriptOf(options: SessionHtmlOptions): { script?: string; connect?: string } {
  return options.script ? { script: options.script.source, connect: options.script.connect } : {};
}

/** Rows of the verification table per write: one string per row batch, not one for all. */
const VERIFICATION_ROWS_PER_WRITE = 256;

/**
 * The verdict of every request, linking each to its place in the timeline; written in batches of
 * rows so a long session's table is never one string (it would be the export's largest object).
 */
async function writeVerification(
  writer: ChunkWriter,
  requests: readonly ReplayedRequest[],
  ok: boolean,
  chainSummary: string,
): Promise<void> {
  const verdict = ok
    ? `<p class="ok" id="verdict">verified: all ${requests.length} requests rebuilt from the log match their recorded hashes</p>`
    : `<p class="bad" id="verdict">MISMATCH: at least one request rebuilt from the log does not match its recorded hash</p>`;
  await writer.write(
    `<section id="verification"><h2>Verification</h2>${chainSummary}${verdict}<table><tr><th>request</th><th>turn.step</th><th>verdict</th></tr>`,
  );
  for (let from = 0; from < requests.length; from += VERIFICATION_ROWS_PER_WRITE) {
    let rows = '';
    const to = Math.min(requests.length, from + VERIFICATION_ROWS_PER_WRITE);
    for (let index = from; index < to; index++) {
      const request = requests[index] as ReplayedRequest;
      rows += `<tr data-seq="${request.seq}"><td><a href="#seq-${request.seq}">request ${index + 1}</a></td><td>${request.turn}.${request.step} attempt ${request.attempt}</td><td>${verdictBadge(request)}</td></tr>`;
    }
    await writer.write(rows);
  }
  await writer.write('</table></section>\n');
}
