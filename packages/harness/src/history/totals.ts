// The figures a front end shows and records about a session (usage, turns, the model last used, the
// context the last request filled) as a projection: a fold kept in the session's snapshots, so
// a lazily opened session has them without its old events, and nothing re-scans the history.

import {
  type AssistantMessageBody,
  addUsage,
  type JsonValue,
  promptTokensOf,
  type SessionEvent,
  type Usage,
} from '@spine/protocol';
import type { Session, SessionProjection } from '@spine/session-log';

/** What {@link sessionTotals} folds from a session's events. */
export interface SessionTotals {
  /** The usage the session's own `assistant/message` events report, summed in log order. */
  own: Usage;
  /** The usage each `agent/child/end` reports (the subagents' and theirs), in log order. */
  children: Usage[];
  /** Number of `turn/end` events. */
  turns: number;
  /** The `reason` of the last `turn/end`; null when there is none (or it has no reason). */
  lastTurnEnd: string | null;
  /** `provider/model` of the last `request/header`; null when it names none (or there is none). */
  model: string | null;
  /**
   * Context tokens the provider reported for the last `assistant/message`, unless a compaction
   * ended after it or it reported no usage (null: estimate instead).
   */
  context: number | null;
}

const NO_USAGE: Usage = {
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

function initial(): SessionTotals {
  return {
    own: { ...NO_USAGE },
    children: [],
    turns: 0,
    lastTurnEnd: null,
    model: null,
    context: null,
  };
}

function apply(state: SessionTotals, event: SessionEvent): SessionTotals {
  switch (event.type) {
    case 'assistant/message': {
      const usage = (event.body as AssistantMessageBody).usage;
      if (usage) state.own = addUsage(state.own, usage);
      state.context = usage ? promptTokensOf(usage) + usage.outputTokens : null;
      break;
    }
    case 'compaction/end':
      state.context = null;
      break;
    case 'agent/child/end': {
      const usage = (event.body as { usage?: Usage }).usage;
      if (usage) state.children.push(usage);
      break;
    }
    case 'turn/end':
      state.turns++;
      state.lastTurnEnd = (event.body as { reason?: string }).reason ?? null;
      break;
    case 'request/header': {
      const { provider, model } = event.body as { provider?: string; model?: string };
      state.model = provider && model ? `${provider}/${model}` : null;
      break;
    }
  }
  return state;
}

/** The session totals as a session projection: pass it in `projections` when opening a session. */
export const SESSION_TOTALS: SessionProjection = {
  name: 'spine-cli/totals',
  version: 1,
  initial: () => initial() as unknown as JsonValue,
  apply: (state, event) => apply(state as unknown as SessionTotals, event) as unknown as JsonValue,
};

/**
 * The totals of `session`: its registered {@link SESSION_TOTALS} projection, else folded over
 * its events (only a session that holds them all can do without the projection).
 */
export function sessionTotals(session: Session): SessionTotals {
  try {
    return session.projection(SESSION_TOTALS.name) as unknown as SessionTotals;
  } catch {
    // not registered with this session: fold below
  }
  const events = session.events();
  if (events.length !== session.lastSeq) {
    throw new Error(
      `session ${session.id} holds part of its history and was opened without ${SESSION_TOTALS.name}: open it with projections: [SESSION_TOTALS]`,
    );
  }
  let state = initial();
  for (const event of events) state = apply(state, event);
  return state;
}

/** `own` plus every child's usage, added in the order `withChildUsage` adds them. */
export function usageWithChildren(own: Usage, totals: SessionTotals): Usage {
  let total = own;
  for (const usage of totals.children) total = addUsage(total, usage);
  return total;
}
