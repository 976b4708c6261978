// The pages of `spine serve`: the session list and one page of a session's timeline. A page reads
// only its own range of the log, so the first page of a long session costs what a short one does.
import type { SessionStore, SessionSummary } from '@spine/protocol';
import type { ChunkWriter } from '@spine/tui';
import type { SessionFileProblem } from '../history/list-jsonl.js';
import { escapeHtml, formatUsd, inertLine } from '../html/escape.js';
import { pageFoot, pageHead } from '../html/page.js';
import { TimelineRenderer } from '../html/timeline.js';
import { LIVE_SCRIPT } from './live.js';

/** Sessions per list page. */
export const LIST_PAGE = 50;
/** Events per session page. */
export const EVENT_PAGE = 200;

/** What the list shows of one session. */
export interface SessionRow {
  summary: SessionSummary;
  title: string;
  model: string;
  costUsd?: number;
  status: string;
}

/** The list of `spine serve`: the sessions, and the files that cannot be opened as sessions. */
export interface SessionList {
  rows: SessionRow[];
  problems: readonly SessionFileProblem[];
}

/** Builds links that carry the token. */
export type LinkFor = (path: string, query?: Record<string, string | number>) => string;

/** The session list, page `page` (from 1). */
export function listPage(
  rows: readonly SessionRow[],
  page: number,
  link: LinkFor,
  problems: readonly SessionFileProblem[] = [],
): string {
  const start = (page - 1) * LIST_PAGE;
  const shown = rows.slice(start, start + LIST_PAGE);
  const body = shown
    .map(({ summary, title, model, costUsd, status }) => {
      const href = link(`/s/${encodeURIComponent(summary.id)}`);
      return `<tr data-id="${escapeHtml(summary.id)}"><td><a href="${escapeHtml(href)}">${inertLine(title || summary.id)}</a><div class="mute">${inertLine(summary.id)}</div></td><td>${inertLine(summary.header.createdAt)}</td><td>${inertLine(summary.updatedAt ?? '–')}</td><td>${inertLine(model || '–')}</td><td>${formatUsd(costUsd)}</td><td class="status">${inertLine(status)}</td></tr>`;
    })
    .join('');
  const pager = [
    page > 1 ? `<a href="${escapeHtml(link('/', { page: page - 1 }))}">← newer</a>` : '',
    start + LIST_PAGE < rows.length
      ? `<a href="${escapeHtml(link('/', { page: page + 1 }))}" rel="next">older →</a>`
      : '',
  ].join('');
  return `${pageHead({ title: 'Spine sessions' })}<header class="session"><h1>Sessions</h1><p class="meta">${rows.length} sessions · page ${page} · read-only</p></header><section id="sessions"><table><tr><th>title</th><th>created</th><th>updated</th><th>model</th><th>cost</th><th>status</th></tr>${body}</table><p class="pager">${pager}</p></section>${problemsHtml(problems)}${pageFoot()}`;
}

/** The files of the folder that are not openable sessions, each with the reason. */
function problemsHtml(problems: readonly SessionFileProblem[]): string {
  if (problems.length === 0) return '';
  const items = problems
    .map(
      (problem) =>
        `<li class="bad"><code>${inertLine(problem.name)}</code>: ${inertLine(problem.reason)}</li>`,
    )
    .join('');
  return `<section id="unreadable"><h2>Files that cannot be opened</h2><ul>${items}</ul></section>`;
}

/**
 * Writes page `from` (the first seq shown) of session `id`: its events up to {@link EVENT_PAGE},
 * links to the neighbouring pages and to the full audit; the last page follows the session live.
 */
export async function writeSessionPage(
  store: SessionStore,
  id: string,
  from: number,
  writer: ChunkWriter,
  link: LinkFor,
): Promise<void> {
  const childLink = (child: string) => link(`/s/${encodeURIComponent(child)}`);
  const audit = link(`/s/${encodeURIComponent(id)}/audit`);
  const timeline = new TimelineRenderer(
    childLink,
    `<p class="mute">Requests are rebuilt and verified in <a href="${escapeHtml(audit)}">the full audit</a>.</p>`,
  );
  await writer.write(
    pageHead({ title: `Spine session ${id}`, script: LIVE_SCRIPT, connect: "'self'" }),
  );
  if (from > 1) {
    for await (const event of store.readRange(id, { fromSeq: 1, toSeq: 1 }))
      await writer.write(timeline.render(event));
  }
  const to = from + EVENT_PAGE - 1;
  let last = from - 1;
  let opened = false;
  const open = async (): Promise<void> => {
    if (opened) return;
    opened = true;
    const previous =
      from > 1
        ? `<a href="${escapeHtml(link(`/s/${encodeURIComponent(id)}`, { from: Math.max(1, from - EVENT_PAGE) }))}">← earlier events</a>`
        : '';
    await writer.write(
      `<p class="pager">${previous}<a href="${escapeHtml(audit)}">full audit (verified requests, totals)</a><a href="${escapeHtml(link('/'))}">all sessions</a></p><section id="timeline">\n`,
    );
  };
  for await (const event of store.readRange(id, { fromSeq: from, toSeq: to })) {
    await writer.write(timeline.render(event));
    if (event.type !== 'session/header') await open();
    last = event.seq;
  }
  await open();
  if (last >= to) {
    const next = link(`/s/${encodeURIComponent(id)}`, { from: to + 1 });
    await writer.write(
      `${timeline.finish()}</section><p class="pager"><a href="${escapeHtml(next)}" rel="next">later events →</a></p>`,
    );
  } else {
    const follow = link(`/s/${encodeURIComponent(id)}/events`, { after: last });
    await writer.write(
      `<div id="live" data-follow="${escapeHtml(follow)}" data-last="${last}"></div>${timeline.finish()}</section>`,
    );
  }
  await writer.write(pageFoot(LIVE_SCRIPT));
}
