import type { SessionLog, ToolCallPart, Usage } from '@spine/protocol';
import { copyState, foldedState, loopStateFold } from './projections.js';

/** Where an interrupted turn stopped. */
export interface OpenTurn {
  turn: number;
  /** The last step that started (0: only the user input was written). */
  step: number;
  /** `stream`: no assistant message yet; `tools`: message written, tools not all done; `done`: step ended. */
  phase: 'stream' | 'tools' | 'done';
  /** The attempt number of the last request of that step (0 for none). */
  attempt: number;
  /** Seq of that request's header. */
  headerSeq?: number;
  /** Whether that request's outcome was recorded. */
  attemptRecorded: boolean;
  /** Tool calls of the step's message that have no result. */
  pendingCalls: ToolCallPart[];
}

/** The loop state read back from a session log. */
export interface RestoredLoopState {
  lastTurn: number;
  open?: OpenTurn;
  usage: Usage;
}

/**
 * Reads the last turn number, the interrupted turn (if any) and the usage totals from the log
 * (its `agent-loop/turns` projection when registered). The result is the caller's to change.
 *
 * @throws a {@link PartialHistoryError} for a lazily opened session without the projection.
 */
export function restoreLoopState(session: SessionLog): RestoredLoopState {
  const state = foldedState(session, loopStateFold);
  const usage = { ...state.usage };
  if (!state.open) return { lastTurn: state.lastTurn, usage };
  const open = copyState(state.open);
  const results = new Set(state.results);
  open.pendingCalls = copyState(state.calls).filter((call) => !results.has(call.id));
  return { lastTurn: state.lastTurn, open, usage };
}
