// `usage_update`: the context a request used (from the provider's usage, which calibrates
// Spine's token meter) against the model's window, and the session's cost when known.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { promptTokensOf, type Usage } from '@spine/protocol';

/** The usage update after a request with `usage`; `costUsd` is the session's total so far. */
export function usageUpdate(
  usage: Usage,
  contextWindow: number,
  costUsd: number | undefined,
): SessionUpdate {
  return {
    sessionUpdate: 'usage_update',
    used: promptTokensOf(usage) + usage.outputTokens,
    size: contextWindow,
    ...(costUsd === undefined ? {} : { cost: { amount: costUsd, currency: 'USD' } }),
  };
}
