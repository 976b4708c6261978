import type {
  CompactionContext,
  SessionEvent,
  SessionLog,
  Summarizer,
  TokenMeter,
} from '@spine/protocol';
import { frameCheckpoint } from '../checkpoint.js';
import { awaitCandidate, discardCandidate, startCandidate } from './candidates.js';
import { chooseRegion, type Marks } from './policy.js';
import { snapshotCheckpoint, summarizeSnapshot } from './prepare.js';
import type { EngineSessionState } from './state.js';
import { runTransaction, type TransactionInput, type TransactionResult } from './transaction.js';

// The steps of one compaction: commit a background candidate, prepare one, or compact now.

/** What every step needs of the engine's configuration. */
export interface EngineCore {
  meter: TokenMeter;
  summarizer: Summarizer | undefined;
  isPinned: ((event: SessionEvent) => boolean) | undefined;
  maxFailures: number;
  /** Recent context kept beyond the latest step, in tokens, for a window. */
  keepRecentTokens(marks: Marks): number;
  /** Tokens budgeted for the model summary. */
  allowance: number;
}

/** Measured figures a step plans with. */
export interface StepBase {
  tokens: number;
  factor: number;
  marks: Marks;
}

function selectRegion(
  core: EngineCore,
  session: SessionLog,
  tokens: number,
  factor: number,
  marks: Marks,
  minimal = false,
) {
  return chooseRegion(session, core.meter, {
    tokens,
    factor,
    marks,
    keepRecentTokens: core.keepRecentTokens(marks),
    allowance: core.allowance,
    minimal,
  });
}

export async function commitCandidate(
  core: EngineCore,
  context: CompactionContext,
  state: EngineSessionState,
  base: StepBase,
): Promise<TransactionResult | undefined> {
  const { session } = context;
  const candidate = state.candidate;
  if (!candidate || context.focus) return undefined;
  let prepared: Awaited<ReturnType<typeof awaitCandidate>>;
  try {
    prepared = await awaitCandidate(candidate, context.signal);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      stage: 'aborted',
      message: `aborted while waiting for the candidate: ${message}`,
    };
  }
  if (!prepared || state.candidate !== candidate) return undefined;
  if (session.replaceGeneration !== candidate.generation || !session.get(candidate.region.end)) {
    discardCandidate(
      session,
      state,
      candidate,
      'stale: the surface was replaced after it was built',
    );
    return undefined;
  }
  const framed = frameCheckpoint({
    compactionId: session.lastSeq + 1,
    region: candidate.region,
    record: prepared.record,
    summary: prepared.summary ?? '',
  });
  const projected =
    base.tokens + base.factor * (core.meter.countText(framed) - prepared.regionRawTokens);
  if (projected >= base.marks.low) {
    discardCandidate(
      session,
      state,
      candidate,
      'insufficient: it would not bring the context below the low mark',
    );
    return undefined;
  }
  state.candidate = undefined;
  return runTransaction({
    ...transactionBase(core, context, state, base),
    mode: 'background',
    region: candidate.region,
    ...(candidate.seq !== undefined ? { candidateSeq: candidate.seq } : {}),
    prepare: async () => prepared,
  });
}

export function transactionBase(
  core: EngineCore,
  context: CompactionContext,
  state: EngineSessionState,
  base: StepBase,
): Omit<TransactionInput, 'mode' | 'region' | 'prepare'> {
  const eventOptions = {
    ...(context.turn !== undefined ? { turn: context.turn } : {}),
    ...(context.step !== undefined ? { step: context.step } : {}),
  };
  return {
    session: context.session,
    reason: context.reason,
    tokensBefore: base.tokens,
    factor: base.factor,
    lowTokens: Math.floor(base.marks.low),
    contextWindow: context.contextWindow,
    meter: core.meter,
    system: context.system,
    tools: context.tools,
    eventOptions,
    failureTrips: state.consecutiveFailures + 1 >= core.maxFailures && context.reason !== 'manual',
    ...(context.signal ? { signal: context.signal } : {}),
  };
}

export async function compactNow(
  core: EngineCore,
  context: CompactionContext,
  state: EngineSessionState,
  base: StepBase,
): Promise<TransactionResult> {
  const { session } = context;
  const selected = selectRegion(core, session, base.tokens, base.factor, base.marks);
  const txBase = transactionBase(core, context, state, base);
  if (!selected) {
    const message = 'nothing on the surface can be compacted without splitting the latest step';
    try {
      session.append(
        'compaction/failed',
        {
          compactionId: null,
          reason: context.reason,
          stage: 'select',
          message,
          breakerTripped: txBase.failureTrips,
        },
        txBase.eventOptions,
      );
    } catch {
      // Nothing changed; the outcome still says why.
    }
    return { ok: false, stage: 'select', message };
  }
  return runTransaction({
    ...txBase,
    mode: 'sync',
    region: selected.region,
    prepare: async (signal) => {
      const snapshot = snapshotCheckpoint({
        session,
        region: selected.region,
        system: context.system,
        tools: context.tools,
        meter: core.meter,
        ...(context.focus ? { focus: context.focus } : {}),
        ...(core.isPinned ? { isPinned: core.isPinned } : {}),
      });
      return summarizeSnapshot(snapshot, core.summarizer, signal);
    },
  });
}

export function ensureCandidate(
  core: EngineCore,
  context: CompactionContext,
  state: EngineSessionState,
  base: StepBase,
): void {
  const { session } = context;
  const current = state.candidate;
  if (current && current.generation === session.replaceGeneration) return;
  if (current) discardCandidate(session, state, current, 'stale: the surface was replaced');
  // A candidate covers everything but the latest step: the context keeps growing until the
  // hard mark, and the commit must still land below the low mark then.
  const selected = selectRegion(core, session, base.tokens, base.factor, base.marks, true);
  if (!selected) return;
  let snapshot: ReturnType<typeof snapshotCheckpoint>;
  try {
    snapshot = snapshotCheckpoint({
      session,
      region: selected.region,
      system: context.system,
      tools: context.tools,
      meter: core.meter,
      ...(core.isPinned ? { isPinned: core.isPinned } : {}),
    });
  } catch {
    // No candidate this time; at the hard mark a synchronous compaction records the failure.
    return;
  }
  startCandidate(session, state, snapshot, core.summarizer);
}
