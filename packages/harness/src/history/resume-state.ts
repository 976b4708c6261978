// What `spine resume` must settle before the session continues, as a projection kept in the
// session's snapshots: subagents a crash left running and tool calls that reached `tool/started`
// without a result (with the step they began in). Resume reads it from the snapshot and the tail
// instead of streaming the whole log to find them.

import type { JsonValue, SessionEvent } from '@spine/protocol';
import type { SessionProjection } from '@spine/session-log';

/** The state of {@link RESUME_STATE}. Bounded by what is open, not by the log's length. */
export interface ResumeState {
  /** Child session ids whose `agent/child/start` has no `agent/child/end` yet. */
  children: string[];
  /** The seq of the latest `step/start` (1 before any). */
  stepStart: number;
  /** `[toolCallId, seq of the step/start before its tool/started]` of every unanswered call. */
  started: Array<[string, number]>;
  // An index signature keeps the state a JsonValue.
  [key: string]: JsonValue;
}

function idOf(event: SessionEvent, key: 'sessionId' | 'toolCallId'): string | undefined {
  const value = (event.body as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** Removes the last entry `match` accepts, if any. */
function removeLast<T>(list: T[], match: (item: T) => boolean): void {
  for (let i = list.length - 1; i >= 0; i--) {
    if (match(list[i] as T)) {
      list.splice(i, 1);
      return;
    }
  }
}

/**
 * Open subagents and unanswered started tool calls, folded over the log. Register it with the
 * session (it is part of {@link agentProjections}); {@link openToResume} reads it.
 */
export const RESUME_STATE: SessionProjection<ResumeState> = {
  name: 'harness/resume',
  version: 1,
  types: ['agent/child/start', 'agent/child/end', 'step/start', 'tool/started', 'tool/result'],
  initial: () => ({ children: [], stepStart: 1, started: [] }),
  apply(state, event) {
    switch (event.type) {
      case 'step/start':
        state.stepStart = event.seq;
        break;
      case 'agent/child/start': {
        const child = idOf(event, 'sessionId');
        if (child !== undefined) state.children.push(child);
        break;
      }
      case 'agent/child/end': {
        const child = idOf(event, 'sessionId');
        if (child !== undefined) removeLast(state.children, (open) => open === child);
        break;
      }
      case 'tool/started': {
        const call = idOf(event, 'toolCallId');
        if (call === undefined) break;
        // A repeated id counts from its latest start, as a map keyed by id would.
        removeLast(state.started, ([open]) => open === call);
        state.started.push([call, state.stepStart]);
        break;
      }
      case 'tool/result': {
        const call = idOf(event, 'toolCallId');
        if (call !== undefined && state.started.length > 0) {
          state.started = state.started.filter(([open]) => open !== call);
        }
        break;
      }
    }
    return state;
  },
};

/** The seq of the step where the earliest unanswered started call began; undefined: none. */
export function interruptedFrom(state: ResumeState): number | undefined {
  let from: number | undefined;
  for (const [, seq] of state.started) from = from === undefined ? seq : Math.min(from, seq);
  return from;
}
