import type { RUNTIME_CONTEXT_SOURCE } from '@spine/agent-loop';
import {
  type AgentSession,
  childLabel,
  childMonitorFor,
  sessionTotals,
  usageWithChildren,
} from '@spine/harness';
import { type AssistantMessageBody, promptTokensOf, type Usage } from '@spine/protocol';
import { displayWidth } from './markdown/width.js';
import { hardWrap } from './markdown/wrap.js';
import { formatCost, type Style } from './style.js';

/** Compact token figure: 950, 12.3k, 1.2M. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/** Prompt tokens of the latest request (provider-reported), else the meter's estimate. */
export function contextTokens(active: AgentSession): number {
  const reported = sessionTotals(active.session).context;
  if (reported !== null) return reported;
  const snapshot = active.prompt.assemble({ tools: active.runtime.specs() });
  return active.meter.measure({
    session: active.session,
    system: snapshot.system,
    tools: snapshot.tools,
  }).tokens;
}

/** The usage the session's latest model request reported (in memory), if any. */
export function lastRequestUsage(active: AgentSession): Usage | undefined {
  const events = active.session.events();
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type !== 'assistant/message') continue;
    const usage = (event.body as AssistantMessageBody).usage;
    if (usage) return usage;
  }
  return undefined;
}

/** `cache hit of last request 83% (10.2k tokens)`: the share of its prompt read from the cache. */
function cacheFigure(last: Usage | undefined): string {
  if (last === undefined) return 'cache hit of last request: no request yet';
  const prompt = promptTokensOf(last);
  const percent = prompt === 0 ? 0 : Math.round((last.cacheReadTokens / prompt) * 100);
  return `cache hit of last request ${percent}% (${formatTokens(last.cacheReadTokens)} tokens)`;
}

/**
 * The status line; each figure names what it measures: the model, the context of the next
 * request (tokens / window, %), the cache hits of the last request (% of its prompt, tokens), the
 * session's cost (subagents included), the sandbox, and the subagents running, when any. With
 * `width` (a terminal's columns) the figures are put on as many lines as they need, never cut.
 *
 * @example
 * `openai/gpt-5 · context of next request 12.3k/400k (3%) · cache hit of last request 83% (10.2k tokens) · cost $0.0123 this session · sandbox workspace-write`
 */
export function statusLine(active: AgentSession, style: Style, width?: number): string {
  // Totals include the subagents' usage (their agent/child/end events).
  const usage: Usage = usageWithChildren(active.agent.usage, sessionTotals(active.session));
  const tokens = contextTokens(active);
  const window = active.model.contextWindow;
  const percent = Math.min(100, Math.round((tokens / window) * 100));
  const running = childMonitorFor(active.session).running().map(childLabel);
  const figures = [
    `${active.model.provider}/${active.model.modelId}`,
    `context of next request ${formatTokens(tokens)}/${formatTokens(window)} (${percent}%)`,
    cacheFigure(lastRequestUsage(active)),
    `cost ${formatCost(usage.costUsd ?? 0)} this session`,
    `sandbox ${active.runtime.sandbox}`,
    ...(running.length > 0 ? [`subagents running: ${running.join(', ')}`] : []),
    ...jobsRunning(active),
  ];
  if (width === undefined) return style.dim(figures.join(' · '));
  return fitFigures(figures, width)
    .map((line) => style.dim(line))
    .join('\n');
}

/**
 * Figures joined by ` · ` into lines of at most `width` columns: a line breaks between two
 * figures, never inside one (only a figure wider than `width` alone is cut into rows).
 *
 * @example
 * ```ts
 * fitFigures(['spine', 'model x', '/work'], 16); // ['spine · model x', '/work']
 * ```
 */
export function fitFigures(parts: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    const next = line === '' ? part : `${line} · ${part}`;
    if (line !== '' && displayWidth(next) > width) {
      lines.push(line);
      line = part;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines.flatMap((text) => hardWrap(text, Math.max(1, width)));
}

/** `jobs running: job-1, job-3` while background jobs run (none for a session without). */
function jobsRunning(active: AgentSession): string[] {
  const running = active.jobs?.manager.running() ?? [];
  return running.length > 0 ? [`jobs running: ${running.map((job) => job.id).join(', ')}`] : [];
}

// agent-loop's RUNTIME_CONTEXT_SOURCE as a literal its type checks: importing the terminal
// presentation (`spine sessions`, `spine show`) does not load agent-loop.
const RUNTIME_CONTEXT: typeof RUNTIME_CONTEXT_SOURCE = 'runtime-context';

/** What the model sees now, with token counts: system, tools, messages, runtime context. */
export function contextReport(active: AgentSession): string {
  const snapshot = active.prompt.assemble({ tools: active.runtime.specs() });
  const meter = active.meter;
  const system = meter.countText(snapshot.system);
  const tools = meter.countText(JSON.stringify(snapshot.tools));
  let messages = 0;
  let runtime = 0;
  let count = 0;
  for (const message of active.session.deriveMessages().messages) {
    const tokens = meter.countMessage(message);
    if (message.role === 'user' && message.source === RUNTIME_CONTEXT) runtime += tokens;
    else {
      messages += tokens;
      count++;
    }
  }
  const total = system + tools + messages + runtime;
  const window = active.model.contextWindow;
  const row = (name: string, tokens: number, note = ''): string =>
    `  ${name.padEnd(16)} ${formatTokens(tokens).padStart(7)}  ${note}`;
  return [
    `context of ${active.session.id} (${active.model.provider}/${active.model.modelId}):`,
    row(
      'system prompt',
      system,
      `${snapshot.system.length} chars, ${active.prompt.contributionIds().join(', ')}`,
    ),
    row(
      'tools',
      tools,
      `${snapshot.tools.length}: ${snapshot.tools.map((tool) => tool.name).join(', ')}`,
    ),
    row('messages', messages, `${count} on the surface`),
    row('runtime context', runtime, Object.keys(snapshot.contexts).join(', ')),
    row(
      'total',
      total,
      `${Math.round((total / window) * 100)}% of ${formatTokens(window)} (raw tokenizer count)`,
    ),
  ].join('\n');
}
