import type { SessionLog } from './session.js';
import type { ToolSpec } from './tool-spec.js';
/** Why a compaction is being considered. */
export type CompactionReason = 'pressure' | 'overflow' | 'manual';
/** What the agent loop hands a compaction engine. */
export interface CompactionContext {
  /** The live session. */
  session: SessionLog;
  /** Why: a pre-step pressure check, a context-overflow error, or a user command. */
  reason: CompactionReason;
  /** The current model's context window, in tokens. */
  contextWindow: number;
  /** Output tokens reserved for the reply. */
  maxOutputTokens?: number;
  /** The system prompt in force. */
  system: string;
  /** The tools in force. */
  tools: readonly ToolSpec[];
  /** The current turn and step, for the events the engine appends. */
  turn?: number;
  step?: number;
  /** Focus requested by the user (`/compact focus`). */
  focus?: string;
  /** Cancels the compaction; the surface is left as it was. */
  signal?: AbortSignal;
}
/** What a compaction attempt did. */
export interface CompactionOutcome {
  /**
   * `not-needed`: below the threshold; `compacted`: the surface was replaced;
   * `failed`: nothing changed (see `message`); `disabled`: auto-compaction is off;
   * `tripped`: the breaker stopped automatic compaction for this session.
   */
  status: 'not-needed' | 'compacted' | 'failed' | 'disabled' | 'tripped';
  /** The compaction id (seq of its `compaction/start`), when one ran. */
  compactionId?: number;
  /** Measured context before and after, in tokens. */
  tokensBefore?: number;
  tokensAfter?: number;
  /** A sentence for the user. */
  message?: string;
}
/**
 * Folds old history into a checkpoint when the context is under pressure. `@spine/compaction`
 * implements it; the agent loop calls it at pre-step and on context overflow.
 *
 * Contract: never throws for compaction failures: it records `compaction/failed`, leaves the
 * surface exactly as it was and returns `failed`. Throws only on caller mistakes.
 */
export interface CompactionEngine {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** Compacts if `context.reason` calls for it and the policy allows. */
  compact(context: CompactionContext): Promise<CompactionOutcome>;
}
//# sourceMappingURL=compaction-engine.d.ts.map
