import type { SessionLog, Summarizer } from '@spine/protocol';
import type { SurfaceRegion } from '../region.js';
import type { CheckpointSnapshot, PreparedCheckpoint } from './prepare.js';
import { summarizeSnapshot } from './prepare.js';
import type { CandidateState, EngineSessionState } from './state.js';

/** Stops a candidate and records `compaction/discarded`. */
export function discardCandidate(
  session: SessionLog,
  state: EngineSessionState,
  candidate: CandidateState,
  reason: string,
): void {
  candidate.controller.abort(new Error(`candidate discarded: ${reason}`));
  if (state.candidate === candidate) state.candidate = undefined;
  try {
    session.append('compaction/discarded', {
      candidateSeq: candidate.seq ?? null,
      region: candidate.region,
      generation: candidate.generation,
      currentGeneration: session.replaceGeneration,
      reason,
    });
  } catch {
    // Nothing was committed by a candidate; failing to record its end changes no surface.
  }
}

/**
 * Starts preparing a candidate in the background from a snapshot taken now. When it is ready it
 * is recorded as `compaction/candidate`, unless the surface generation moved meanwhile (then it
 * is discarded as stale).
 */
export function startCandidate(
  session: SessionLog,
  state: EngineSessionState,
  snapshot: CheckpointSnapshot,
  summarizer: Summarizer | undefined,
): CandidateState {
  const controller = new AbortController();
  const region: SurfaceRegion = snapshot.base.region;
  const candidate: CandidateState = {
    region,
    generation: snapshot.base.generation,
    controller,
    promise: Promise.resolve(undefined),
  };
  candidate.promise = summarizeSnapshot(snapshot, summarizer, controller.signal).then(
    (prepared): PreparedCheckpoint | undefined => {
      if (state.candidate !== candidate) return undefined;
      if (session.replaceGeneration !== candidate.generation) {
        discardCandidate(session, state, candidate, 'stale: the surface was replaced meanwhile');
        return undefined;
      }
      let event: { seq: number };
      try {
        event = session.append('compaction/candidate', {
          region,
          generation: candidate.generation,
          facts: prepared.facts,
          summary: prepared.summary ?? null,
          summarizerError: prepared.summarizerError ?? null,
          regionRawTokens: prepared.regionRawTokens,
        });
      } catch (error) {
        // The session refused the record (closed, for example): drop the candidate quietly.
        const message = error instanceof Error ? error.message : String(error);
        discardCandidate(session, state, candidate, `not recorded: ${message}`);
        return undefined;
      }
      candidate.seq = event.seq;
      candidate.prepared = prepared;
      return prepared;
    },
    (error: unknown) => {
      if (state.candidate === candidate) {
        const message = error instanceof Error ? error.message : String(error);
        discardCandidate(session, state, candidate, `failed: ${message}`);
      }
      return undefined;
    },
  );
  state.candidate = candidate;
  return candidate;
}

/** Resolves with the candidate's result, or `undefined` when `signal` aborts first. */
export function awaitCandidate(
  candidate: CandidateState,
  signal: AbortSignal | undefined,
): Promise<PreparedCheckpoint | undefined> {
  if (candidate.prepared) return Promise.resolve(candidate.prepared);
  if (!signal) return candidate.promise;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    candidate.promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
