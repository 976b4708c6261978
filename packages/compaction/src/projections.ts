import type { JsonValue, SessionEvent } from '@spine/protocol';
import { sourcesFold } from './internal/sources.js';
import { breakerFold } from './internal/state.js';

/**
 * A named, versioned fold over a session's events, the shape `@spine/session-log`'s
 * `SessionProjection` takes (`Session.create` / `Session.open` option `projections`).
 */
export interface CompactionProjection {
  /** Unique name within a session. */
  readonly name: string;
  /** The fold's version; a snapshot holding another version is refolded from the log. */
  readonly version: number;
  /** The state before any event. */
  initial(): JsonValue;
  /** The state after `event` (changed in place). */
  apply(state: JsonValue, event: SessionEvent): JsonValue;
  /** The event types `apply` reads (others leave the state as it is); omitted: every type. */
  readonly types?: readonly string[];
}

/**
 * The compaction engine's projections: the failure breaker, and what checkpoints read besides
 * the surface (earlier checkpoints' facts, whole outputs of cut tool results, the prompts
 * regions were sent with). Pass them to
 * `Session.create` / `Session.open` (option `projections`) for every session the engine
 * compacts; a session opened with `history: 'lazy'` must have them, a fully read one falls back
 * to folding its events.
 *
 * @example
 * ```ts
 * const session = await Session.open({ store, id, history: 'lazy', projections: compactionProjections });
 * ```
 */
export const compactionProjections: readonly CompactionProjection[] = [
  breakerFold,
  sourcesFold,
] as unknown as readonly CompactionProjection[];
