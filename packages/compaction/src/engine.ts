import type {
  CompactionContext,
  CompactionEngine,
  CompactionOutcome,
  SessionLog,
} from '@spine/protocol';
import { frameCheckpoint } from './checkpoint.js';
import { InvalidCompactionConfigError } from './errors.js';
import { awaitCandidate, discardCandidate, startCandidate } from './internal/candidates.js';
import { chooseRegion, type Marks, settleOutcome } from './internal/policy.js';
import { snapshotCheckpoint, summarizeSnapshot } from './internal/prepare.js';
import { type EngineSessionState, restoreState } from './internal/state.js';
import { runTransaction, type TransactionResult } from './internal/transaction.js';
import type { CompactionEngineOptions, CompactionState } from './types.js';

/** The engine `createCompactionEngine` returns: the protocol interface plus session controls. */
export interface SpineCompactionEngine extends CompactionEngine {
  /** The engine's state for `session` (breaker, running, background candidate). */
  state(session: SessionLog): CompactionState;
  /** Re-arms automatic compaction after the breaker tripped. */
  resetBreaker(session: SessionLog): void;
  /** Resolves when the session's background candidate, if any, has settled. */
  whenIdle(session: SessionLog): Promise<void>;
  /** Stops and discards the session's background candidate, if any. */
  cancelBackground(session: SessionLog): void;
}

/**
 * Creates the compaction engine: pressure and overflow triggers against the current model's
 * window, transactional checkpoints (deterministic record plus LLM summary), a breaker against
 * compaction loops, and optional background candidates with a two-level watermark.
 *
 * @throws {InvalidCompactionConfigError} when thresholds are not `0 < low <= soft <= high <= 1`.
 * @example
 * ```ts
 * const engine = createCompactionEngine({ meter: createTokenMeter(), summarizer });
 * const outcome = await engine.compact({ session, reason: 'pressure', contextWindow: 128_000, system, tools });
 * ```
 */
export function createCompactionEngine(options: CompactionEngineOptions): SpineCompactionEngine {
  const soft = options.thresholds?.soft ?? 0.65;
  const high = options.thresholds?.high ?? 0.8;
  const low = options.thresholds?.low ?? 0.45;
  if (!(low > 0 && low <= soft && soft <= high && high <= 1)) {
    throw new InvalidCompactionConfigError({
      detail: `thresholds must satisfy 0 < low <= soft <= high <= 1, got low ${low}, soft ${soft}, high ${high}`,
    });
  }
  const maxFailures = options.maxConsecutiveFailures ?? 3;
  if (!(maxFailures >= 1)) {
    throw new InvalidCompactionConfigError({ detail: 'maxConsecutiveFailures must be at least 1' });
  }
  const { meter, summarizer } = options;
  const auto = options.auto !== false;
  const sessions = new WeakMap<SessionLog, EngineSessionState>();
  const stateOf = (session: SessionLog): EngineSessionState => {
    let state = sessions.get(session);
    if (!state) {
      state = restoreState(session);
      sessions.set(session, state);
    }
    return state;
  };

  function marksOf(context: CompactionContext): Marks {
    if (!(context.contextWindow > 0)) {
      throw new InvalidCompactionConfigError({
        detail: 'contextWindow must be a positive number of tokens',
      });
    }
    const reserved = context.maxOutputTokens ?? 0;
    const window =
      reserved < context.contextWindow ? context.contextWindow - reserved : context.contextWindow;
    return { window, soft: window * soft, high: window * high, low: window * low };
  }

  const keepRecentOf = (marks: Marks): number =>
    options.keepRecent?.tokens ?? (options.keepRecent?.fraction ?? 0.15) * marks.window;
  const allowance = summarizer ? (options.summaryAllowance ?? 2000) : 0;
  function selectRegion(
    session: SessionLog,
    tokens: number,
    factor: number,
    marks: Marks,
    minimal = false,
  ) {
    return chooseRegion(session, meter, {
      tokens,
      factor,
      marks,
      keepRecentTokens: keepRecentOf(marks),
      allowance,
      minimal,
    });
  }

  async function commitCandidate(
    context: CompactionContext,
    state: EngineSessionState,
    base: { tokens: number; factor: number; marks: Marks },
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
      base.tokens + base.factor * (meter.countText(framed) - prepared.regionRawTokens);
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
      ...transactionBase(context, state, base),
      mode: 'background',
      region: candidate.region,
      ...(candidate.seq !== undefined ? { candidateSeq: candidate.seq } : {}),
      prepare: async () => prepared,
    });
  }

  function transactionBase(
    context: CompactionContext,
    state: EngineSessionState,
    base: { tokens: number; factor: number; marks: Marks },
  ) {
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
      meter,
      system: context.system,
      tools: context.tools,
      eventOptions,
      failureTrips: state.consecutiveFailures + 1 >= maxFailures && context.reason !== 'manual',
      ...(context.signal ? { signal: context.signal } : {}),
    };
  }

  async function compactNow(
    context: CompactionContext,
    state: EngineSessionState,
    base: { tokens: number; factor: number; marks: Marks },
  ): Promise<TransactionResult> {
    const { session } = context;
    const selected = selectRegion(session, base.tokens, base.factor, base.marks);
    const txBase = transactionBase(context, state, base);
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
          meter,
          ...(context.focus ? { focus: context.focus } : {}),
          ...(options.isPinned ? { isPinned: options.isPinned } : {}),
        });
        return summarizeSnapshot(snapshot, summarizer, signal);
      },
    });
  }

  function settle(
    context: CompactionContext,
    state: EngineSessionState,
    result: TransactionResult,
    base: { tokens: number; marks: Marks },
  ): CompactionOutcome {
    return settleOutcome(result, { state, reason: context.reason, maxFailures, ...base });
  }

  return {
    specificationVersion: 1,
    async compact(context): Promise<CompactionOutcome> {
      const { session } = context;
      const marks = marksOf(context);
      const state = stateOf(session);
      const automatic = context.reason !== 'manual';
      if (automatic && !auto) {
        return {
          status: 'disabled',
          message:
            context.reason === 'overflow'
              ? `The context exceeds the model's ${context.contextWindow}-token window and automatic compaction is disabled; run /compact or enable auto-compaction.`
              : 'Automatic compaction is disabled.',
        };
      }
      if (automatic && state.tripped) {
        return {
          status: 'tripped',
          message: `Automatic compaction is off for this session after ${state.consecutiveFailures} consecutive failures; run /compact by hand or start a new session.`,
        };
      }
      if (state.running)
        return { status: 'not-needed', message: 'A compaction is already running.' };
      const measured = meter.measure({ session, system: context.system, tools: context.tools });
      const base = { tokens: measured.tokens, factor: measured.factor, marks };
      if (context.reason === 'overflow' && measured.tokens < marks.window && measured.tokens > 0) {
        // The provider said the request did not fit although the meter thinks it does: the meter
        // undercounts. Scale its counts towards the window (at most 1.5×: a larger gap means a
        // misconfigured window, not a miscount) and calibrate the meter the same way.
        const scale = Math.min(marks.window / measured.tokens, 1.5);
        base.tokens = Math.ceil(measured.tokens * scale);
        base.factor = measured.factor * scale;
        meter.observe({ rawTokens: measured.rawTokens, reportedTokens: base.tokens });
      }
      if (context.reason === 'pressure' && measured.tokens < marks.high) {
        if (options.background && measured.tokens >= marks.soft)
          ensureCandidate(context, state, base);
        return { status: 'not-needed', tokensBefore: measured.tokens };
      }
      state.running = true;
      try {
        let result: TransactionResult | undefined;
        if (options.background) result = await commitCandidate(context, state, base);
        if (!result) {
          if (state.candidate)
            discardCandidate(
              session,
              state,
              state.candidate,
              'superseded by a synchronous compaction',
            );
          result = await compactNow(context, state, base);
        }
        return settle(context, state, result, base);
      } finally {
        state.running = false;
      }
    },
    state(session): CompactionState {
      const state = stateOf(session);
      const candidate = state.candidate;
      return {
        consecutiveFailures: state.consecutiveFailures,
        tripped: state.tripped,
        running: state.running,
        ...(candidate
          ? {
              candidate: {
                region: candidate.region,
                generation: candidate.generation,
                ready: candidate.prepared !== undefined,
                ...(candidate.seq !== undefined ? { seq: candidate.seq } : {}),
              },
            }
          : {}),
      };
    },
    resetBreaker(session) {
      const state = stateOf(session);
      state.tripped = false;
      state.consecutiveFailures = 0;
    },
    async whenIdle(session) {
      await stateOf(session).candidate?.promise;
    },
    cancelBackground(session) {
      const state = stateOf(session);
      if (state.candidate) discardCandidate(session, state, state.candidate, 'cancelled');
    },
  };

  function ensureCandidate(
    context: CompactionContext,
    state: EngineSessionState,
    base: { tokens: number; factor: number; marks: Marks },
  ): void {
    const { session } = context;
    const current = state.candidate;
    if (current && current.generation === session.replaceGeneration) return;
    if (current) discardCandidate(session, state, current, 'stale: the surface was replaced');
    // A candidate covers everything but the latest step: the context keeps growing until the
    // hard mark, and the commit must still land below the low mark then.
    const selected = selectRegion(session, base.tokens, base.factor, base.marks, true);
    if (!selected) return;
    const snapshot = snapshotCheckpoint({
      session,
      region: selected.region,
      system: context.system,
      tools: context.tools,
      meter,
      ...(options.isPinned ? { isPinned: options.isPinned } : {}),
    });
    startCandidate(session, state, snapshot, summarizer);
  }
}
