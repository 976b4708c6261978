import type {
  EventTypeDefinition,
  JsonObject,
  JsonValue,
  Projector,
  SessionEvent,
  SessionStore,
} from '@spine/protocol';

/**
 * Derived state folded over every event of a session, kept in snapshots so that a lazily opened
 * session restores it without reading the log. `apply` must be pure and deterministic: the state
 * after folding events 1..n must not depend on where a snapshot split them. Bump `version` when
 * the fold changes; a snapshot holding another version is refolded from the log.
 */
export interface SessionProjection<State extends JsonValue = JsonValue> {
  /** Unique name within a session. */
  readonly name: string;
  /** The fold's version. */
  readonly version: number;
  /** The state before any event. */
  initial(): State;
  /** The state after `event`; may return `state` changed in place. */
  apply(state: State, event: SessionEvent): State;
  /**
   * The event types `apply` reads. When given, the session calls `apply` only for events of
   * these types (on append, on open and when refolding), so a fold of a few types costs nothing
   * per other event; `apply` must then leave the state unchanged for every other type. Omitted:
   * every event.
   */
  readonly types?: readonly string[];
  /**
   * The state in this version from a snapshot's state of an older `version` (a pure function;
   * undefined or a throw: the state is folded again from the log). Omitted: a snapshot of
   * another version is always folded again from the log.
   */
  migrate?(state: JsonValue, version: number): State | undefined;
}

/**
 * When a session writes snapshots: at a turn boundary (`checkpoint()`) and on `close()`, once
 * `afterEvents` events were appended since the last snapshot (default 512). `false` turns
 * automatic snapshots off (`Session.snapshot()` still writes one).
 */
export type SnapshotPolicy = false | { afterEvents?: number };

/** Options of `Session.create`. */
export interface SessionCreateOptions {
  /** Where the session is stored. */
  store: SessionStore;
  /** The session id; a random UUID when omitted. */
  id?: string;
  /** The working directory the session runs in. */
  cwd?: string;
  /** A human-readable title. */
  title?: string;
  /** The model the session started with. */
  model?: string;
  /**
   * The session and seq this one was forked from; `chain` holds the parent's chain values at
   * seq 1 and `atSeq`, and for a fork of a fork those of the chains before it (set by `fork()`,
   * see `verifyJsonlLog`).
   */
  parent?: {
    sessionId: string;
    atSeq: number;
    chain?: { start: string; end: string; ancestors?: { atSeq: number; start: string }[] };
  };
  /** Free-form JSON metadata stored in the header. */
  meta?: JsonObject;
  /** Custom event types to register before anything is appended. */
  eventTypes?: readonly EventTypeDefinition[];
  /** Replaces the default projector for built-in surface types. */
  projector?: Projector;
  /** Derived state kept in snapshots (see {@link SessionProjection}). */
  projections?: readonly SessionProjection[];
  /** When snapshots are written (default `{ afterEvents: 512 }`). */
  snapshots?: SnapshotPolicy;
}

/** Options of `Session.open`. */
export interface SessionOpenOptions {
  /** Where the session is stored. */
  store: SessionStore;
  /** The session id. */
  id: string;
  /** Read without taking the writer lock; appends are refused and nothing is repaired on disk. */
  readOnly?: boolean;
  /** Answer tool calls a crash left without a result (default true). */
  recover?: boolean;
  /** Custom event types the stored session uses. */
  eventTypes?: readonly EventTypeDefinition[];
  /** Replaces the default projector for built-in surface types. */
  projector?: Projector;
  /** Derived state kept in snapshots (see {@link SessionProjection}). */
  projections?: readonly SessionProjection[];
  /** When snapshots are written (default `{ afterEvents: 512 }`). */
  snapshots?: SnapshotPolicy;
  /**
   * `full` (default): every event is held in memory, as before. `lazy`: opening reads the newest
   * valid snapshot and the events after it; only the header, the surface and the events since
   * the snapshot are held, so `get()` and `events()` return just those, and older events are read
   * with `readEvents()`. A missing or invalid snapshot is rebuilt from the whole log (and written).
   */
  history?: 'full' | 'lazy';
}

/** Options of `Session.fork`. */
export interface SessionForkOptions {
  /** Where the fork is stored (default: the parent's store). */
  store?: SessionStore;
  /** The fork's id; a random UUID when omitted. */
  id?: string;
  /** Answer tool calls left open at the fork point (default true). */
  recover?: boolean;
}

/** When appended events reach the disk: on every append, at turn boundaries, or only on flush. */
export type FsyncPolicy = 'always' | 'per-turn' | 'never';
