import type { SessionEvent, SessionHeaderBody, SurfaceOp } from './events.js';
import type { SessionBlobs } from './image-check.js';
import type { JsonValue } from './json.js';
import type { Message } from './messages.js';

/** Options of {@link SessionLog.append}. */
export interface AppendOptions {
  /** The turn the event belongs to; must not go backwards. */
  turn?: number;
  /** The step the event belongs to; must not go backwards within a turn. */
  step?: number;
  /** Surface change; required for an event to enter model history. */
  surfaceOp?: SurfaceOp;
  /** Events this one derives from. */
  sourceEventSeqs?: number[];
}

/** The messages the model sees now, with the seq each came from. */
export interface DerivedMessages {
  /** Protocol messages, in surface order. Never mutate: they are shared with later calls. */
  readonly messages: readonly Message[];
  /** `seqs[i]` is the seq of the surface event `messages[i]` was projected from. */
  readonly seqs: readonly number[];
  /** The surface generation these were derived at; bumps on every `replace`. */
  readonly generation: number;
}

/** A listener for events as they are appended. */
export type SessionListener = (event: SessionEvent) => void;

/**
 * What packages other than session-log need of a live session: append, read, derive.
 * `Session` in `@spine/session-log` implements it.
 *
 * Contract: `append` validates and throws a typed error on bad input, leaving the log
 * untouched; it never partially applies an event. `deriveMessages` is the only way to
 * obtain model history.
 */
export interface SessionLog {
  /** The session id. */
  readonly id: string;
  /** The body of the `session/header` event. */
  readonly header: SessionHeaderBody;
  /** The seq of the last event (0 for none). */
  readonly lastSeq: number;
  /** Bumps on every surface `replace`. */
  readonly replaceGeneration: number;
  /** Appends one event and returns it with its seq. */
  append<Body = unknown>(type: string, body: Body, options?: AppendOptions): SessionEvent<Body>;
  /** The event with this seq, if any. */
  get(seq: number): SessionEvent | undefined;
  /** Events with `from <= seq <= to` (defaults: the whole log), in order. */
  events(range?: { from?: number; to?: number }): readonly SessionEvent[];
  /** The seqs currently on the surface, in order. */
  surface(): readonly number[];
  /** The model history derived from the surface; incremental. */
  deriveMessages(): DerivedMessages;
  /**
   * The message(s) one surface event projects to, with the session's projector and registered
   * event types: the projection `deriveMessages` uses, for events no longer on the surface too.
   */
  project(event: SessionEvent): readonly Message[];
  /** Calls `listener` for every event appended from now on; returns an unsubscribe function. */
  subscribe(listener: SessionListener): () => void;
  /** Makes every appended event durable now, whatever the store's fsync policy. */
  flush(): Promise<void>;
  /**
   * Marks a turn boundary: the events appended so far are written, synced when the store's fsync
   * policy is `per-turn`, and an automatic snapshot is written when one is due. Optional: a log
   * without buffered writes or snapshots omits it. The agent loop calls it after each `turn/end`.
   */
  checkpoint?(): void;
  /**
   * Registers state captured into every snapshot this log writes, under `name` (a consumer's
   * derived state that is costly to rebuild, such as the request-hash chain). Optional: a log
   * without snapshots omits it.
   */
  attachToSnapshots?(name: string, capture: () => JsonValue): void;
  /**
   * What `name` held in the snapshot this log was opened from, with that snapshot's seq; undefined
   * when it was opened without a valid snapshot or the snapshot has no such attachment.
   */
  snapshotAttachment?(name: string): { seq: number; value: JsonValue } | undefined;
  /**
   * The current state of a projection registered when the log was created or opened (a named,
   * versioned fold over every event, kept in snapshots), so that a lazily opened log answers
   * for events it does not hold. Optional: throws for a name that was not registered.
   */
  projection?<State extends JsonValue = JsonValue>(name: string): State;
  /**
   * The chain value of the last line the store wrote and its seq, when the store chains its
   * lines (JSONL); undefined otherwise. `request/header` records it (`chain`), anchoring the
   * log up to that line in each request.
   */
  chainHead?(): { seq: number; h: string } | undefined;
  /**
   * The session's blob store (image bytes by SHA-256), when its store keeps blobs. Optional: a
   * log without one cannot take images.
   */
  readonly blobs?: SessionBlobs;
}
