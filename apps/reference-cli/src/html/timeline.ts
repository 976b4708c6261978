// The turn timeline: each event of a session as HTML, in log order, with an `id="seq-N"` anchor.
// Holds only what later events refer to (the open turn, the last written content per path, the
// previous rebuilt request), so a session of any length renders in flat memory.
import type {
  AssistantMessageBody,
  AttemptBody,
  CompactionEndBody,
  CompactionStartBody,
  CompactionSummaryBody,
  ModelRequest,
  RequestHeaderBody,
  RetryBody,
  SessionEvent,
  SessionHeaderBody,
  ToolApprovalBody,
  ToolResultBody,
  ToolStartedBody,
  TurnEndBody,
  UserMessageBody,
} from '@spine/protocol';
import { escapeHtml, formatInteger, formatUsd, inertLine } from './escape.js';
import { foldedPre } from './fold.js';
import { imagesHtml } from './image-marker.js';
import { renderMarkdownHtml } from './markdown.js';
import { type RebuiltEntry, requestViewHtml, verdictBadge } from './request-view.js';
import { toolSourceMark } from './sources.js';
import { toolCallHtml } from './tool-call.js';

/** How a child session is linked (`<id>.html` next to an export, `/s/<id>` under `spine serve`). */
export type ChildLink = (sessionId: string) => string;

/** A subagent the session started, for the tree. */
export interface ChildEntry {
  sessionId: string;
  profile: string;
  description: string;
  seq: number;
  reason?: string;
}

const ev = (event: SessionEvent, kind: string, inner: string): string =>
  `<div class="ev ${kind}" id="seq-${event.seq}" data-type="${escapeHtml(event.type)}"><a class="mute" href="#seq-${event.seq}">#${event.seq}</a> ${inner}</div>\n`;

/** How many request headers still waiting for their `assistant/attempt` are remembered. */
const PENDING_HEADERS = 64;

/** Renders events one at a time (see the module comment). */
export class TimelineRenderer {
  /** Subagents started so far, in order. */
  readonly children: ChildEntry[] = [];
  /** Requests rendered so far. */
  requests = 0;
  #turnOpen = false;
  #previous: ModelRequest | undefined;
  #headerAt = new Map<number, number>();
  readonly #written = new Map<string, string>();
  readonly #childLink: ChildLink;
  readonly #unverified: string | undefined;

  /** `unverified`: shown instead of a verdict when requests are not replayed (paged views). */
  constructor(childLink: ChildLink, unverified?: string) {
    this.#childLink = childLink;
    this.#unverified = unverified;
  }

  /** The HTML of `event`; `rebuilt` is replay's rebuilt request when `event` is its header. */
  render(event: SessionEvent, rebuilt?: RebuiltEntry): string {
    const body = event.body as Record<string, unknown>;
    switch (event.type) {
      case 'session/header':
        return this.#sessionHeader(event as SessionEvent<SessionHeaderBody>);
      case 'turn/start': {
        const close = this.#turnOpen ? '</section>' : '';
        this.#turnOpen = true;
        return `${close}<section class="turn" id="turn-${event.turn ?? 0}"><h2>Turn ${event.turn ?? '?'}</h2>${ev(event, 'mark', `<span class="mute">turn started ${escapeHtml(event.at)}</span>`)}`;
      }
      case 'turn/end': {
        const end = body as unknown as TurnEndBody;
        const error = end.error
          ? ` — ${inertLine(end.error.code)}: ${inertLine(end.error.message)}`
          : '';
        const html = ev(
          event,
          'mark',
          `<strong>turn ended: ${inertLine(String(end.reason))}</strong>${error}`,
        );
        const close = this.#turnOpen ? '</section>' : '';
        this.#turnOpen = false;
        return html + close;
      }
      case 'user/message':
        return this.#userMessage(event as SessionEvent<UserMessageBody>);
      case 'assistant/message':
        return this.#assistant(event as SessionEvent<AssistantMessageBody>);
      case 'request/header':
        return this.#request(event as SessionEvent<RequestHeaderBody>, rebuilt);
      case 'assistant/attempt':
        return this.#attempt(event as SessionEvent<AttemptBody>);
      case 'llm/retry': {
        const retry = body as unknown as RetryBody;
        return ev(
          event,
          'retry',
          `<span class="bad">retry</span> attempt ${retry.failedAttempt} → ${retry.nextAttempt} after ${formatInteger(retry.delayMs)} ms: ${inertLine(retry.reason)}${retry.code ? ` (${inertLine(retry.code)})` : ''}`,
        );
      }
      case 'tool/approval': {
        const approval = body as unknown as ToolApprovalBody;
        const cls = approval.decision === 'allow' ? 'ok' : 'bad';
        return ev(
          event,
          'approval',
          `approval of <code>${inertLine(approval.toolName)}</code>: <span class="${cls}">${inertLine(approval.decision)}</span> by ${inertLine(approval.by)}${approval.scope ? ` (${inertLine(approval.scope)})` : ''}${approval.reason ? ` — ${inertLine(approval.reason)}` : ''}`,
        );
      }
      case 'tool/started': {
        const started = body as unknown as ToolStartedBody;
        return ev(
          event,
          'started',
          `<span class="mute">started <code>${inertLine(started.toolName)}</code> [${inertLine(started.toolCallId)}]</span>`,
        );
      }
      case 'tool/result':
        return this.#toolResult(event as SessionEvent<ToolResultBody>);
      case 'compaction/start': {
        const start = body as unknown as CompactionStartBody;
        return ev(
          event,
          'compaction',
          `<strong>compaction</strong> (${inertLine(start.reason)}) folds seqs <a href="#seq-${start.region.start}">${start.region.start}</a>–<a href="#seq-${start.region.end}">${start.region.end}</a>${start.tokensBefore === undefined ? '' : `, ${formatInteger(start.tokensBefore)} tokens before`}`,
        );
      }
      case 'compaction/summary': {
        const summary = body as unknown as CompactionSummaryBody;
        const facts = summary.facts?.length
          ? `<details><summary>${summary.facts.length} facts kept</summary>${foldedPre(JSON.stringify(summary.facts, null, 2))}</details>`
          : '';
        return ev(
          event,
          'compaction',
          `checkpoint text:${summary.summary ? foldedPre(summary.summary) : `<span class="bad">no summary: ${inertLine(summary.summarizerError ?? 'none')}</span>`}${facts}`,
        );
      }
      case 'compaction/end': {
        const end = body as unknown as CompactionEndBody;
        return ev(
          event,
          'compaction',
          `compaction ended: checkpoint <a href="#seq-${end.checkpointSeq}">#${end.checkpointSeq}</a>${end.tokensAfter === undefined ? '' : `, ${formatInteger(end.tokensBefore ?? 0)} → ${formatInteger(end.tokensAfter)} tokens`}`,
        );
      }
      case 'agent/child/start':
        return this.#childStart(event);
      case 'agent/child/end': {
        const end = body as { sessionId?: string; reason?: string; error?: string };
        const child = this.children.find((entry) => entry.sessionId === end.sessionId);
        if (child && end.reason) child.reason = end.reason;
        return ev(
          event,
          'child',
          `subagent <a href="${escapeHtml(this.#childLink(String(end.sessionId)))}">${inertLine(String(end.sessionId))}</a> ended: ${inertLine(String(end.reason))}${end.error ? ` — ${inertLine(end.error)}` : ''}`,
        );
      }
      case 'request/context': {
        const sources = Object.keys((body.contexts as Record<string, string> | undefined) ?? {});
        return ev(
          event,
          'minor',
          `<span class="mute">context of <a href="#seq-${Number(body.request)}">request #${Number(body.request)}</a> from: ${sources.length ? sources.map(inertLine).join(', ') : 'none'}</span>`,
        );
      }
      case 'workspace/restored':
      case 'session/forked':
        return ev(
          event,
          'rewind',
          `<strong>${event.type === 'session/forked' ? 'fork' : 'rewind'}</strong>${foldedPre(JSON.stringify(event.body, null, 2))}`,
        );
      case 'step/start':
      case 'step/end':
      case 'prompt/system':
      case 'tools/defined':
      case 'llm/retry-started':
        return ev(
          event,
          'minor',
          `<span class="mute">${inertLine(event.type)}${event.step === undefined ? '' : ` step ${event.step}`}</span>`,
        );
      default:
        return ev(
          event,
          'other',
          `<details><summary>${inertLine(event.type)}</summary>${foldedPre(JSON.stringify(event.body, null, 2))}</details>`,
        );
    }
  }

  /** Closes what is still open (a turn the log has not ended). */
  finish(): string {
    const close = this.#turnOpen ? '</section>' : '';
    this.#turnOpen = false;
    return close;
  }

  #sessionHeader(event: SessionEvent<SessionHeaderBody>): string {
    const header = event.body;
    const parent = header.parent
      ? ` · child of <a href="${escapeHtml(this.#childLink(header.parent.sessionId))}">${inertLine(header.parent.sessionId)}</a>`
      : '';
    return `<header class="session" id="seq-${event.seq}"><h1>${inertLine(header.title ?? header.sessionId)}</h1><p class="meta">session <code>${inertLine(header.sessionId)}</code> · created ${inertLine(header.createdAt)} · model ${inertLine(header.model ?? '–')} · cwd ${inertLine(header.cwd ?? '–')}${parent}</p></header>\n`;
  }

  #userMessage(event: SessionEvent<UserMessageBody>): string {
    const { source, content } = event.body;
    const images = imagesHtml(event.body.images);
    if (source === 'user') return ev(event, 'user', `${renderMarkdownHtml(content)}${images}`);
    const label =
      source === 'compact-checkpoint' ? 'compaction checkpoint' : `context from ${source}`;
    return ev(
      event,
      'context',
      `<details><summary>${inertLine(label)} (${formatInteger(content.length)} chars)</summary>${foldedPre(content)}</details>${images}`,
    );
  }

  #assistant(event: SessionEvent<AssistantMessageBody>): string {
    let html = '';
    for (const part of event.body.content) {
      if (part.type === 'text')
        html += `<div class="answer">${renderMarkdownHtml(part.text)}</div>`;
      else if (part.type === 'reasoning')
        html += `<details class="reasoning"><summary>reasoning (${formatInteger(part.text.length)} chars)</summary>${foldedPre(part.text)}</details>`;
      else html += toolCallHtml(part, this.#written);
    }
    return ev(event, 'assistant', html);
  }

  #request(event: SessionEvent<RequestHeaderBody>, rebuilt: RebuiltEntry | undefined): string {
    const header = event.body;
    this.requests++;
    this.#headerAt.set(event.seq, Date.parse(event.at));
    // An attempt follows its header within the step; a header no attempt names (a log written
    // without them) must not keep its entry for the rest of the session.
    if (this.#headerAt.size > PENDING_HEADERS) {
      this.#headerAt.delete(this.#headerAt.keys().next().value as number);
    }
    const unverified = rebuilt === undefined ? this.#unverified : undefined;
    const view = unverified ?? requestViewHtml(header, rebuilt, this.#previous);
    if (rebuilt) this.#previous = rebuilt.request;
    const badge = unverified === undefined ? verdictBadge(rebuilt?.verdict) : 'not replayed here';
    const title = `request ${this.requests} · turn ${header.turn} step ${header.step} attempt ${header.attempt} · ${inertLine(`${header.provider}/${header.model}`)} · ${badge}`;
    return ev(
      event,
      'request',
      `<details class="req" data-request="${this.requests}"><summary>${title}</summary>${view}</details>`,
    );
  }

  #attempt(event: SessionEvent<AttemptBody>): string {
    const attempt = event.body;
    const started = this.#headerAt.get(attempt.request);
    this.#headerAt.delete(attempt.request);
    const latency =
      started === undefined ? '–' : `${((Date.parse(event.at) - started) / 1000).toFixed(2)} s`;
    const usage = attempt.usage;
    const outcome =
      attempt.outcome === 'ok'
        ? '<span class="ok">ok</span>'
        : `<span class="bad">${inertLine(attempt.outcome)}</span>`;
    if (!usage)
      return ev(
        event,
        'attempt',
        `attempt ${attempt.attempt} of <a href="#seq-${attempt.request}">request #${attempt.request}</a>: ${outcome}${attempt.message ? ` — ${inertLine(attempt.message)}` : ''} · ${latency}`,
      );
    const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const cache = prompt === 0 ? 0 : Math.round((usage.cacheReadTokens / prompt) * 100);
    const causes = attempt.prefixCauses?.length
      ? ` · cache broken by ${inertLine(attempt.prefixCauses.join(', '))}`
      : '';
    return ev(
      event,
      'attempt',
      `attempt ${attempt.attempt} of <a href="#seq-${attempt.request}">request #${attempt.request}</a>: ${outcome} · in ${formatInteger(prompt)} · out ${formatInteger(usage.outputTokens)} · cache ${cache}% (${formatInteger(usage.cacheReadTokens)}) · ${formatUsd(usage.costUsd)} · ${latency}${causes}`,
    );
  }

  #toolResult(event: SessionEvent<ToolResultBody>): string {
    const result = event.body;
    const meta = result.meta ?? {};
    const outcome = result.outcome ?? (result.isError ? 'error' : 'ok');
    const interrupted = outcome === 'unknown' || outcome === 'not-started';
    const facts = [
      `<span class="${result.isError ? 'bad' : 'ok'}">${inertLine(outcome)}</span>`,
      meta.sandbox ? `sandbox ${inertLine(String(meta.sandbox))}` : '',
      meta.durationMs === undefined ? '' : `${formatInteger(meta.durationMs)} ms`,
      meta.exitCode === undefined ? '' : `exit ${meta.exitCode}`,
      meta.provider ? `from ${inertLine(String(meta.provider))}` : '',
      meta.sourcePath ? `path ${inertLine(String(meta.sourcePath))}` : '',
      meta.sourceUrl ? `url ${inertLine(String(meta.sourceUrl))}` : '',
      meta.truncated ? `truncated from ${formatInteger(meta.originalLength ?? 0)} chars` : '',
      interrupted ? '<strong>interrupted call: verified outcome below</strong>' : '',
    ].filter(Boolean);
    return ev(
      event,
      'result',
      `<div class="tool">result of <code>${inertLine(result.toolName)}</code>${toolSourceMark(result.toolName)} [${inertLine(result.toolCallId)}] · ${facts.join(' · ')}${imagesHtml(result.images)}${foldedPre(result.content)}</div>`,
    );
  }

  #childStart(event: SessionEvent): string {
    const start = event.body as { sessionId: string; profile: string; description: string };
    this.children.push({
      sessionId: start.sessionId,
      profile: start.profile,
      description: start.description,
      seq: event.seq,
    });
    return ev(
      event,
      'child',
      `subagent <a href="${escapeHtml(this.#childLink(start.sessionId))}">${inertLine(start.sessionId)}</a> (${inertLine(start.profile)}): ${inertLine(start.description)}`,
    );
  }
}

/** The subagent tree section. */
export function childrenHtml(children: readonly ChildEntry[], childLink: ChildLink): string {
  if (children.length === 0) return '';
  const items = children
    .map(
      (child) =>
        `<li><a href="${escapeHtml(childLink(child.sessionId))}">${inertLine(child.sessionId)}</a> · ${inertLine(child.profile)} · ${inertLine(child.reason ?? 'running or interrupted')} · ${inertLine(child.description)} (<a href="#seq-${child.seq}">#${child.seq}</a>)</li>`,
    )
    .join('');
  return `<section id="children"><h2>Subagents</h2><ul>${items}</ul></section>\n`;
}
