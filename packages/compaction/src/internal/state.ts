import type { SessionLog } from '@spine/protocol';
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

/**
 * Restores the breaker state from the log, so a resumed session keeps its failure count:
 * failures after the last `compaction/end` count, and a failure that tripped the breaker stays
 * tripped until a compaction succeeds.
 */
export function restoreState(session: SessionLog): EngineSessionState {
  const state: EngineSessionState = { consecutiveFailures: 0, tripped: false, running: false };
  for (const event of session.events()) {
    if (event.type === 'compaction/end') {
      state.consecutiveFailures = 0;
      state.tripped = false;
    } else if (event.type === 'compaction/failed') {
      state.consecutiveFailures++;
      if ((event.body as { breakerTripped?: boolean }).breakerTripped === true)
        state.tripped = true;
    }
  }
  return state;
}
