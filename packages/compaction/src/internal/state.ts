import type { SessionEvent, SessionLog } from '@spine/protocol';
import { CompactionFailedError } from '../errors.js';
import type { SurfaceRegion } from '../region.js';
import type { PreparedCheckpoint } from './prepare.js';

/** A background candidate checkpoint. */
export interface CandidateState {
  region: SurfaceRegion;
  generation: number;
  controller: AbortController;
  promise: Promise<PreparedCheckpoint | undefined>;
  prepared?: PreparedCheckpoint;
  seq?: number;
}

/** What the engine remembers per session. */
export interface EngineSessionState {
  consecutiveFailures: number;
  tripped: boolean;
  running: boolean;
  candidate?: CandidateState;
}

/** The breaker as the log left it: failures since the last success, and whether it tripped. */
export type BreakerState = {
  consecutiveFailures: number;
  tripped: boolean;
};

/**
 * The breaker as a fold over the log: failures after the last `compaction/end` count, and a
 * failure that tripped the breaker stays tripped until a compaction succeeds.
 */
export const breakerFold = {
  name: 'compaction/breaker',
  version: 1,
  types: ['compaction/end', 'compaction/failed'] as readonly string[],
  initial: (): BreakerState => ({ consecutiveFailures: 0, tripped: false }),
  apply(state: BreakerState, event: SessionEvent): BreakerState {
    if (event.type === 'compaction/end') {
      state.consecutiveFailures = 0;
      state.tripped = false;
    } else if (event.type === 'compaction/failed') {
      state.consecutiveFailures++;
      if ((event.body as { breakerTripped?: boolean } | undefined)?.breakerTripped === true)
        state.tripped = true;
    }
    return state;
  },
};

/**
 * Restores the breaker state from the log (its `compaction/breaker` projection when the session
 * registered it), so a resumed session keeps its failure count.
 *
 * @throws a {@link CompactionFailedError} for a lazily opened session without the projection.
 */
export function restoreState(session: SessionLog): EngineSessionState {
  let breaker: BreakerState | undefined;
  if (typeof session.projection === 'function') {
    try {
      breaker = session.projection<BreakerState>(breakerFold.name);
    } catch {
      breaker = undefined; // not registered: fold the events below
    }
  }
  if (!breaker) {
    const events = session.events();
    if (events.length !== session.lastSeq) {
      throw new CompactionFailedError({
        stage: 'select',
        detail: `session ${session.id} was opened lazily without the compaction/breaker projection; open it with projections: compactionProjections`,
      });
    }
    breaker = breakerFold.initial();
    for (const event of events) breaker = breakerFold.apply(breaker, event);
  }
  return {
    consecutiveFailures: breaker.consecutiveFailures,
    tripped: breaker.tripped,
    running: false,
  };
}
