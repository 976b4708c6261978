import type {
  CompactionOutcome,
  CompactionReason,
  Message,
  SessionEvent,
  SessionLog,
  TokenMeter,
} from '@spine/protocol';
import { surfaceEventsOf } from '../checkpoint.js';
import { type SurfaceRegion, selectCompactableRange } from '../region.js';
import { messageTokens } from './prepare.js';
import type { EngineSessionState } from './state.js';
import type { TransactionResult } from './transaction.js';

/** The watermarks in tokens for the current model's window. */
export interface Marks {
  window: number;
  soft: number;
  high: number;
  low: number;
}

/** What {@link chooseRegion} weighs. */
export interface ChooseRegionInput {
  tokens: number;
  factor: number;
  marks: Marks;
  keepRecentTokens: number;
  /** Tokens budgeted for the summary. */
  allowance: number;
  /** Keep only the latest step (background candidates). */
  minimal: boolean;
}

/**
 * Picks the region to compact: first keeping `keepRecentTokens` of recent context; when that
 * would not land below the low mark, keeping only the latest step.
 */
export function chooseRegion(
  session: SessionLog,
  meter: TokenMeter,
  input: ChooseRegionInput,
): { region: SurfaceRegion; regionTokens: number } | undefined {
  const derived = session.deriveMessages();
  const bySeq = new Map<number, Message>();
  for (let index = 0; index < derived.seqs.length; index++) {
    bySeq.set(derived.seqs[index] as number, derived.messages[index] as Message);
  }
  const countEvent = (event: SessionEvent): number => {
    const message = bySeq.get(event.seq);
    return message ? messageTokens(meter, message) * input.factor : 0;
  };
  const surface = surfaceEventsOf(session);
  let best: { region: SurfaceRegion; regionTokens: number } | undefined;
  for (const keepRecentTokens of input.minimal ? [0] : [input.keepRecentTokens, 0]) {
    const region = selectCompactableRange(surface, { countEvent, keepRecentTokens });
    if (!region) continue;
    let regionTokens = 0;
    let inside = false;
    for (const event of surface) {
      if (event.seq === region.start) inside = true;
      if (inside) regionTokens += countEvent(event);
      if (event.seq === region.end) break;
    }
    best = { region, regionTokens };
    if (input.tokens - regionTokens + input.allowance < input.marks.low) break;
  }
  return best;
}

/** Breaker bookkeeping and the sentence for the user, after one transaction. */
export function settleOutcome(
  result: TransactionResult,
  input: {
    state: EngineSessionState;
    reason: CompactionReason;
    maxFailures: number;
    tokens: number;
    marks: Marks;
  },
): CompactionOutcome {
  const { state } = input;
  const reached = result.ok && result.tokensAfter < input.marks.low;
  // An abort is the user's choice, not a sign that compaction cannot work: it does not count.
  const aborted = !result.ok && result.stage === 'aborted';
  if (aborted) {
    // Leave the breaker as it was.
  } else if (reached) {
    state.consecutiveFailures = 0;
    state.tripped = false;
  } else {
    state.consecutiveFailures++;
    if (state.consecutiveFailures >= input.maxFailures && input.reason !== 'manual') {
      state.tripped = true;
    }
  }
  const breaker = state.tripped
    ? ` Automatic compaction is now off for this session after ${state.consecutiveFailures} consecutive failures; run /compact by hand or start a new session.`
    : '';
  if (result.ok) {
    const fallback = result.summarizerError
      ? ` Deterministic checkpoint only (${result.summarizerError}).`
      : '';
    const above = reached
      ? ''
      : ' The context is still above the low mark, so this counts as a failure.';
    return {
      status: 'compacted',
      compactionId: result.compactionId,
      tokensBefore: input.tokens,
      tokensAfter: result.tokensAfter,
      message: `Compacted the context from about ${input.tokens} to ${result.tokensAfter} tokens.${fallback}${above}${breaker}`,
    };
  }
  return {
    status: 'failed',
    ...(result.compactionId !== undefined ? { compactionId: result.compactionId } : {}),
    tokensBefore: input.tokens,
    message: `Compaction failed (${result.stage}): ${result.message}. The context is unchanged.${breaker}`,
  };
}
