// The request view: a request rebuilt from the log, its verification verdict, and how it differs
// from the previous request (where the cached prefix ended, and the cause the log recorded).
import type { ReplayedRequest } from '@spine/agent-loop';
import type { Message, ModelRequest, RequestHeaderBody } from '@spine/protocol';
import { renderDiffHtml } from './diff.js';
import { escapeHtml, formatInteger, inertLine } from './escape.js';
import { foldedPre } from './fold.js';
import { contributionsHtml, mcpServerOf } from './sources.js';

/** One rebuilt request and its verdict, as replay passed them. */
export interface RebuiltEntry {
  request: ModelRequest;
  verdict: ReplayedRequest;
}

/** The verdict as a badge: `verified` or `MISMATCH` naming the field and the event. */
export function verdictBadge(verdict: ReplayedRequest | undefined): string {
  if (!verdict) return '<span class="bad">not rebuilt</span>';
  if (verdict.ok) return '<span class="ok verdict" data-ok="true">✓ verified</span>';
  const mismatch = verdict.mismatch;
  const where =
    mismatch?.eventSeq === undefined
      ? ''
      : ` at <a href="#seq-${mismatch.eventSeq}">event seq ${mismatch.eventSeq}</a>`;
  return `<span class="bad verdict" data-ok="false">✗ MISMATCH: ${inertLine(mismatch?.field ?? 'unknown')}${where}</span>`;
}

function messageText(message: Message): string {
  if (message.role === 'user')
    return `user${message.source ? ` (${message.source})` : ''}: ${message.content}`;
  if (message.role === 'tool')
    return `tool ${message.toolName}${mcpServerOf(message.toolName) === undefined ? '' : ` (from MCP server ${mcpServerOf(message.toolName)})`} [${message.toolCallId}]${message.isError ? ' error' : ''}: ${message.content}`;
  const parts = message.content.map((part) =>
    part.type === 'tool-call'
      ? `call ${part.name}(${part.arguments})`
      : `${part.type}: ${part.text}`,
  );
  return `assistant: ${parts.join('\n')}`;
}

function messagesHtml(messages: readonly Message[], from: number): string {
  return messages
    .slice(from)
    .map(
      (message, index) =>
        `<div class="msg"><span class="mute">#${from + index + 1}</span>${foldedPre(messageText(message))}</div>`,
    )
    .join('');
}

/** What changed in the system prompt or tool list, when it did. */
function headChanges(request: ModelRequest, previous: ModelRequest | undefined): string {
  if (!previous) return '';
  let html = '';
  if (previous.system !== request.system)
    html += `<p>system prompt changed:</p>${renderDiffHtml(previous.system ?? '', request.system ?? '')}`;
  const names = (tools: ModelRequest['tools']) => (tools ?? []).map((tool) => tool.name).join('\n');
  if (names(previous.tools) !== names(request.tools))
    html += `<p>tool list changed:</p>${renderDiffHtml(names(previous.tools), names(request.tools))}`;
  if (previous.model !== request.model)
    html += `<p>model changed: ${inertLine(previous.model)} → ${inertLine(request.model)}</p>`;
  return html;
}

/**
 * The request view of one `request/header`: verdict, then the diff against the previous request:
 * messages it dropped, a marker where the cached prefix ended (with the recorded causes), and the
 * messages it added.
 */
export function requestViewHtml(
  header: RequestHeaderBody,
  entry: RebuiltEntry | undefined,
  previous: ModelRequest | undefined,
): string {
  const prefix = header.prefix;
  const causes = prefix.causes.length ? prefix.causes.join(', ') : 'none';
  const broke = !prefix.extends && prefix.previous !== undefined;
  let html = `<p>${verdictBadge(entry?.verdict)} · ${formatInteger(header.messageCount)} messages · hash <code>${escapeHtml(header.requestHash.slice(0, 23))}…</code></p>`;
  if (!entry) {
    html +=
      '<p class="mute">Its system prompt or tool list is not in the log: it cannot be rebuilt.</p>';
    return html;
  }
  const { request } = entry;
  if (previous && prefix.previous !== undefined) {
    html += `<p>Against <a href="#seq-${prefix.previous}">the previous request</a>: kept ${formatInteger(prefix.kept)} of its ${formatInteger(prefix.of)} messages; ${broke ? `<span class="bad">prefix broken</span>` : 'prefix extended'}; recorded cause: ${inertLine(causes)}.</p>`;
    html += headChanges(request, previous);
    if (prefix.kept < previous.messages.length)
      html += `<div class="removed"><p>dropped from the previous request:</p><del>${messagesHtml(previous.messages, prefix.kept)}</del></div>`;
  }
  html += `<div class="cut">cached prefix ends here: ${formatInteger(prefix.kept)} messages${broke ? ` (broken: ${inertLine(causes)})` : ''}</div>`;
  html += `<div class="added">${messagesHtml(request.messages, prefix.kept)}</div>`;
  html += contributionsHtml(request);
  html += `<details><summary>system prompt (${formatInteger((request.system ?? '').length)} chars) and ${request.tools?.length ?? 0} tools</summary>${foldedPre(request.system ?? '')}<p>${(request.tools ?? []).map((tool) => inertLine(tool.name)).join(', ')}</p></details>`;
  return html;
}
