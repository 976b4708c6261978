// The zod-free facts about the built-in event types: which types exist, their surface role, and
// the values of their closed string unions. The zod schemas (events.ts, loop-bodies.ts) are built
// from these, so that `@spine/protocol/core` can offer them without loading zod.

/** The current version of the persisted event format, carried by `session/header`. */
export const FORMAT_VERSION = 1;

/** How an event type takes part in the surface. */
export type EventSurfaceRole = 'none' | 'surface';

/**
 * The built-in event types and their surface role, without the body schemas (those are in
 * `BUILTIN_EVENT_TYPES`, which has the same keys in the same order).
 *
 * @example
 * ```ts
 * BUILTIN_EVENT_SURFACES['tool/result']; // 'surface'
 * ```
 */
export const BUILTIN_EVENT_SURFACES: Readonly<Record<string, EventSurfaceRole>> = {
  'session/header': 'none',
  'session/recovered': 'none',
  'session/forked': 'none',
  'turn/start': 'none',
  'turn/end': 'none',
  'step/start': 'none',
  'step/end': 'none',
  'user/message': 'surface',
  'assistant/message': 'surface',
  'assistant/attempt': 'none',
  'llm/retry': 'none',
  'llm/retry-started': 'none',
  'request/header': 'none',
  'request/context': 'none',
  'prompt/system': 'none',
  'tools/defined': 'none',
  'agent/inbox/spliced': 'none',
  'agent/aborted': 'none',
  'agent/child/start': 'none',
  'agent/child/end': 'none',
  'tool/approval': 'none',
  'tool/started': 'none',
  'tool/progress': 'none',
  'tool/result': 'surface',
  'tool/output': 'none',
  'compaction/start': 'none',
  'compaction/summary': 'none',
  'compaction/end': 'none',
  'compaction/failed': 'none',
  'compaction/candidate': 'none',
  'compaction/discarded': 'none',
  'workspace/checkpoint': 'none',
  'workspace/restored': 'none',
  'tools/changed': 'none',
  'sampling/answered': 'none',
  'lease/takeover': 'none',
  'session/title': 'none',
  'plan/mode': 'none',
  'session/config': 'none',
  'loop/detected': 'none',
  'budget/exceeded': 'none',
  'hook/run': 'none',
  'job/start': 'none',
  'job/end': 'none',
  'job/recovered': 'none',
};

/** The values of `tool/result` `outcome`, as `ToolResultBodySchema` accepts them. */
export const TOOL_RESULT_OUTCOMES = [
  'ok',
  'error',
  'denied',
  'invalid',
  'not-found',
  'timeout',
  'aborted',
  'unknown',
  'not-started',
] as const;

/** The values of `assistant/attempt` `outcome`, as `AttemptBodySchema` accepts them. */
export const ATTEMPT_OUTCOMES = ['ok', 'error', 'aborted', 'interrupted'] as const;

/** The values of `PrefixChangeCauseSchema`: why a request's prefix differs from the previous one's. */
export const PREFIX_CHANGE_CAUSES = [
  'system-changed',
  'tools-changed',
  'model-changed',
  'compaction-replaced-region',
  'earlier-message-changed',
  'runtime-context-inserted',
] as const;

/** The values of `TurnEndReasonSchema`: why a turn ended. */
export const TURN_END_REASONS = [
  'completed',
  'max-steps',
  'aborted',
  'error',
  'interrupted',
  'stuck',
  'budget',
] as const;
