// Cost and token budgets (issue 38): `maxCost` / `maxTokens` per session and `maxTurnCost` /
// `maxTurnTokens` per turn, checked before each model request from the session's totals (its own
// usage plus every finished subagent's, priced from the model table when the usage was recorded).
// The step limit per turn stays `maxSteps`. A model without a price cannot be held to a cost
// limit, so `maxCost` without `maxTokens` is refused before the session starts.

import type { BudgetExceededBody, SessionEvent, Usage } from '@spine/protocol';
import type { Session } from '@spine/session-log';
import type { SpineConfig } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { sessionTotals, usageWithChildren } from '../history/totals.js';

/** The limits of a configuration that take part in budgets. */
export type BudgetLimits = Pick<
  SpineConfig,
  'maxCost' | 'maxTokens' | 'maxTurnCost' | 'maxTurnTokens'
>;

/** Tokens of every usage bucket. */
function tokensOf(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

/** True when any budget is set. */
export function hasBudget(limits: BudgetLimits): boolean {
  return (
    limits.maxCost !== undefined ||
    limits.maxTokens !== undefined ||
    limits.maxTurnCost !== undefined ||
    limits.maxTurnTokens !== undefined
  );
}

/**
 * Refuses a cost limit for a model whose price is unknown, unless a token limit bounds the
 * session too.
 *
 * @throws a {@link UsageError} naming the model and what to pass instead.
 */
export function assertBudgetPriced(limits: BudgetLimits, model: string, priced: boolean): void {
  const costs = limits.maxCost !== undefined || limits.maxTurnCost !== undefined;
  const tokens = limits.maxTokens !== undefined || limits.maxTurnTokens !== undefined;
  if (costs && !priced && !tokens)
    throw new UsageError({
      message: `--max-cost needs a price, and ${model} has none in the model table; add its price to "models" in the configuration, or pass --max-tokens as well`,
    });
}

/** `$0.0123` or `1234 tokens`. */
function amount(limit: 'cost' | 'tokens', value: number): string {
  return limit === 'cost' ? `$${value.toFixed(4)}` : `${value} tokens`;
}

/** The first limit `spent` reaches, as the `budget/exceeded` body; `undefined`: none. */
export function budgetExceeded(
  scope: 'turn' | 'session',
  spent: Usage,
  limits: { cost?: number | undefined; tokens?: number | undefined },
): BudgetExceededBody | undefined {
  const checks: ['cost' | 'tokens', number | undefined, number | undefined][] = [
    ['cost', limits.cost, spent.costUsd],
    ['tokens', limits.tokens, tokensOf(spent)],
  ];
  for (const [limit, max, used] of checks) {
    if (max === undefined || used === undefined || used < max) continue;
    const other = limit === 'cost' ? amount('tokens', tokensOf(spent)) : '';
    const cost = spent.costUsd === undefined ? '' : amount('cost', spent.costUsd);
    const spentText = [
      limit === 'cost' ? cost : amount('tokens', used),
      limit === 'cost' ? other : cost,
    ]
      .filter((part) => part !== '')
      .join(', ');
    return {
      scope,
      limit,
      spent: used,
      max,
      message: `the ${scope} budget of ${amount(limit, max)} is reached: spent ${spentText} (subagents included); raise the limit and continue the session to go on`,
    };
  }
  return undefined;
}

/** The usage of `session` so far, its finished subagents' included. */
function spentBy(session: Session): Usage {
  const totals = sessionTotals(session);
  return usageWithChildren(totals.own, totals);
}

/** Usage `now` minus usage `before`, bucket by bucket (cost only when both have one). */
function since(now: Usage, before: Usage): Usage {
  const usage: Usage = {
    inputTokens: now.inputTokens - before.inputTokens,
    cacheReadTokens: now.cacheReadTokens - before.cacheReadTokens,
    cacheWriteTokens: now.cacheWriteTokens - before.cacheWriteTokens,
    outputTokens: now.outputTokens - before.outputTokens,
  };
  if (now.costUsd !== undefined) usage.costUsd = now.costUsd - (before.costUsd ?? 0);
  return usage;
}

/**
 * The agent's budget check for `session` (see `AgentOptions.budget`): session limits against all
 * usage so far, turn limits against the usage since the turn's first check.
 */
export function createBudgetCheck(
  session: Session,
  limits: BudgetLimits,
): (position: { turn: number }) => BudgetExceededBody | undefined {
  let baseline: { turn: number; usage: Usage } | undefined;
  return ({ turn }) => {
    const spent = spentBy(session);
    if (baseline?.turn !== turn) baseline = { turn, usage: spent };
    return (
      budgetExceeded('session', spent, { cost: limits.maxCost, tokens: limits.maxTokens }) ??
      budgetExceeded('turn', since(spent, baseline.usage), {
        cost: limits.maxTurnCost,
        tokens: limits.maxTurnTokens,
      })
    );
  };
}

/**
 * Refuses to start a session whose cost limit cannot be checked: the model has no price in the
 * table (built-ins plus the configuration's `models`) and no token limit is set.
 *
 * @throws a {@link UsageError} for `maxCost` on an unpriced model without `maxTokens`.
 */
export async function assertBudgetCheckable(
  config: SpineConfig,
  model: { provider: string; modelId: string },
): Promise<void> {
  if (config.maxCost === undefined && config.maxTurnCost === undefined) return;
  const { createModelTable, lookupModel } = await import('@spine/llm');
  const info = lookupModel(createModelTable(config.models), model.provider, model.modelId);
  assertBudgetPriced(config, `${model.provider}/${model.modelId}`, info?.price !== undefined);
}

/**
 * A rerun's budget check: ends each turn where the recording's `budget/exceeded` ended it (same
 * turn and step), whatever the limits in force now, so the rerun asks for no model output the
 * recording never had.
 */
export function recordedBudgetCheck(
  recorded: readonly SessionEvent[],
): (position: { turn: number; step: number }) => BudgetExceededBody | undefined {
  const stops = new Map<string, BudgetExceededBody>();
  for (const event of recorded)
    if (event.type === 'budget/exceeded')
      stops.set(`${event.turn}:${event.step}`, event.body as BudgetExceededBody);
  return ({ turn, step }) => stops.get(`${turn}:${step}`);
}
