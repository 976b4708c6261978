import type { RUNTIME_CONTEXT_SOURCE } from '@spine/agent-loop';
import { type AgentSession, sessionTotals, usageWithChildren } from '@spine/harness';
import type { Usage } from '@spine/protocol';
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

/** The status line: model, context use (tokens and % of window), cache-hit tokens, cost. */
export function statusLine(active: AgentSession, style: Style): string {
  // Totals include the subagents' usage (their agent/child/end events).
  const usage: Usage = usageWithChildren(active.agent.usage, sessionTotals(active.session));
  const tokens = contextTokens(active);
  const window = active.model.contextWindow;
  const percent = Math.min(100, Math.round((tokens / window) * 100));
  return style.dim(
    [
      `${active.model.provider}/${active.model.modelId}`,
      `context ${formatTokens(tokens)}/${formatTokens(window)} (${percent}%)`,
      `cache hit ${formatTokens(usage.cacheReadTokens)}`,
      `cost ${formatCost(usage.costUsd ?? 0)}`,
      `${active.runtime.sandbox}`,
    ].join(' · '),
  );
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
