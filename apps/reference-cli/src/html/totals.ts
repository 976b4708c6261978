// Session totals, folded event by event with the CLI's own SESSION_TOTALS projection (the figures
// `spine sessions` and the status line show), plus wall time and request count.
import { SESSION_TOTALS, type SessionTotals, usageWithChildren } from '@spine/harness';
import type { JsonValue, SessionEvent } from '@spine/protocol';
import { formatInteger, formatUsd } from './escape.js';

/** Folds totals one event at a time. */
export class TotalsFold {
  #state = SESSION_TOTALS.initial();
  #first: number | undefined;
  #last: number | undefined;
  #requests = 0;

  /** Adds one event. */
  add(event: SessionEvent): void {
    this.#state = SESSION_TOTALS.apply(this.#state, event) as JsonValue;
    const at = Date.parse(event.at);
    if (Number.isFinite(at)) {
      this.#first ??= at;
      this.#last = at;
    }
    if (event.type === 'request/header') this.#requests++;
  }

  /** The totals as a table; each figure carries `data-total="<name>"` (the browser tests read it). */
  html(): string {
    const totals = this.#state as unknown as SessionTotals;
    const own = totals.own;
    const all = usageWithChildren(own, totals);
    const prompt = own.inputTokens + own.cacheReadTokens + own.cacheWriteTokens;
    const cache = prompt === 0 ? 0 : (own.cacheReadTokens / prompt) * 100;
    const seconds =
      this.#first === undefined ? 0 : ((this.#last ?? this.#first) - this.#first) / 1000;
    const row = (name: string, label: string, value: string) =>
      `<tr><th>${label}</th><td data-total="${name}">${value}</td></tr>`;
    return `<section id="totals"><h2>Totals</h2><table>${[
      row('input', 'input tokens (uncached)', formatInteger(own.inputTokens)),
      row('cacheRead', 'cache read tokens', formatInteger(own.cacheReadTokens)),
      row('cacheWrite', 'cache write tokens', formatInteger(own.cacheWriteTokens)),
      row('cachePercent', 'cache hit', `${cache.toFixed(1)}%`),
      row('output', 'output tokens', formatInteger(own.outputTokens)),
      row('cost', 'cost', formatUsd(own.costUsd ?? 0)),
      row('costWithChildren', 'cost with subagents', formatUsd(all.costUsd ?? 0)),
      row('requests', 'requests', formatInteger(this.#requests)),
      row('turns', 'turns', formatInteger(totals.turns)),
      row('seconds', 'wall time', `${seconds.toFixed(1)} s`),
    ].join('')}</table></section>\n`;
  }
}
