import type {
  CompactionContext,
  CompactionEngine,
  CompactionOutcome,
  SessionLog,
} from '@spine/protocol';
import { InvalidCompactionConfigError } from './errors.js';
import { discardCandidate } from './internal/candidates.js';
import {
  commitCandidate,
  compactNow,
  type EngineCore,
  ensureCandidate,
} from './internal/engine-steps.js';
import { type Marks, settleOutcome } from './internal/policy.js';
import { type EngineSessionState, restoreState } from './internal/state.js';
import type { TransactionResult } from './internal/transaction.js';
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
 * @throws an {@link InvalidCompactionConfigError} when thresholds are not
 *   `0 < low <= soft <= high <= 1`.
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
  const { meter } = options;
  const core: EngineCore = {
    meter,
    summarizer: options.summarizer,
    isPinned: options.isPinned,
    maxFailures,
    keepRecentTokens: (marks) =>
      options.keepRecent?.tokens ?? (options.keepRecent?.fraction ?? 0.15) * marks.window,
    allowance: options.summarizer ? (options.summaryAllowance ?? 2000) : 0,
  };
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
          ensureCandidate(core, context, state, base);
        return { status: 'not-needed', tokensBefore: measured.tokens };
      }
      state.running = true;
      try {
        await options.onBeforeCompact?.({
          session,
          reason: context.reason,
          ...(context.focus !== undefined ? { focus: context.focus } : {}),
          tokens: base.tokens,
          threshold: marks.high,
          window: marks.window,
        });
        let result: TransactionResult | undefined;
        if (options.background) result = await commitCandidate(core, context, state, base);
        if (!result) {
          if (state.candidate)
            discardCandidate(
              session,
              state,
              state.candidate,
              'superseded by a synchronous compaction',
            );
          result = await compactNow(core, context, state, base);
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
}
