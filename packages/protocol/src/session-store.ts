import type { SessionEvent, SessionHeaderBody } from './events.js';

/** One line of {@link SessionStore.list}: read from a session's header, not its whole file. */
export interface SessionSummary {
  /** The session id. */
  id: string;
  /** The header body. */
  header: SessionHeaderBody;
  /** Size in bytes of the stored session, when the store knows it cheaply. */
  sizeBytes?: number;
  /** Last modification time (ISO-8601), when known. */
  updatedAt?: string;
}

/**
 * Which events {@link SessionStore.readRange} yields: seqs `fromSeq..toSeq` (inclusive), only
 * the given `types` when set, at most `limit` of them.
 */
export interface SessionRange {
  /** First seq to read (an integer ≥ 1). */
  fromSeq: number;
  /** Last seq to read, inclusive (default: the last committed event). */
  toSeq?: number;
  /** Only events whose `type` is one of these (default: every type). */
  types?: readonly string[];
  /** Stop after yielding this many events (default: no limit). */
  limit?: number;
}

/**
 * A snapshot as a store keeps it. The session log writes and checks `data` (its own versioned
 * format, including the hash of the log up to `seq`); to the store it is opaque text, kept byte
 * for byte. A store keeps at least the newest snapshot of each session.
 */
export interface StoredSnapshot {
  /** The seq the snapshot describes: every event up to and including it is folded in. */
  seq: number;
  /** The serialised snapshot, kept exactly. */
  data: string;
}

/** Options of {@link SessionStore.open}. */
export interface SessionStoreOpenOptions {
  /** Read without taking the writer lock; appends are refused and nothing is repaired. */
  readOnly?: boolean;
  /**
   * Hand back only the events from this seq on in {@link OpenedSession.events} (the rest stay
   * readable through {@link SessionStore.readRange}). Default 1: every event. A seq past the
   * last event gives an empty `events`; `lastSeq` still says where the log ends.
   */
  fromSeq?: number;
}

/** What {@link SessionStore.open} hands back: the committed events and a writer. */
export interface OpenedSession {
  /**
   * The committed events from the open's `fromSeq` (default 1: every event), in seq order;
   * torn or partial events already removed.
   */
  readonly events: readonly SessionEvent[];
  /** The seq of the last committed event when the session was opened or created. */
  readonly lastSeq: number;
  /** Set when opening repaired the stored data (for example a torn last line was cut). */
  readonly repaired?: { reason: string; truncatedBytes?: number };
  /** Appends already-validated events. Returns once they are durable per the store's policy. */
  append(events: readonly SessionEvent[]): void;
  /** Makes every appended event durable now. */
  flush(): Promise<void>;
  /** Called at turn boundaries; stores with a `per-turn` durability policy sync here. */
  checkpoint?(): void;
  /**
   * The chain value of the last line written (which may be behind the last event appended: a
   * store that writes in groups does not write early for it) and that line's seq, for stores
   * that chain their lines; undefined when the store keeps no chain or has written none.
   */
  chainHead?(): { seq: number; h: string } | undefined;
  /**
   * Stores `snapshot` as the session's newest, atomically: a crash leaves the previous snapshot
   * or the new one, never a mix. Every event up to `snapshot.seq` must have been appended; the
   * store makes them durable first. Durable per the store's policy.
   *
   * @throws a {@link SpineError} with code `SESSION_CLOSED` from a read-only or closed writer.
   */
  writeSnapshot(snapshot: StoredSnapshot): Promise<void>;
  /** Releases the lock and file handles. Idempotent. */
  close(): Promise<void>;
  /**
   * The session's content-addressed blobs (image bytes), when the store keeps them: each stored
   * once under its SHA-256, referenced from events by that hash. Read-only opens can `get`.
   */
  readonly blobs?: StoreBlobs;
}

/**
 * A session's blobs as a store keeps them (see {@link OpenedSession.blobs}).
 *
 * Contract: `put` is idempotent and makes the blob durable no later than the events appended
 * after it (a reader never sees an event whose blob is not stored); it throws on I/O failure and
 * with a `SESSION_CLOSED` SpineError on a read-only or closed writer. `get` returns the bytes as
 * stored (which `replay --verify` hashes: a store never checks them on read) or undefined.
 */
export interface StoreBlobs {
  /** Stores `bytes` under `sha256` (lower-case hex of their SHA-256) unless already stored. */
  put(sha256: string, bytes: Uint8Array): void;
  /** The bytes stored under `sha256`, or undefined. */
  get(sha256: string): Uint8Array | undefined;
}

/**
 * Durable storage of session event logs. Implementations: memory, JSONL (default), SQLite.
 *
 * Contract: a store never rewrites committed events. Snapshots belong to the store (so that
 * writing one is as crash-safe as the store's own writes) but their content does not: the
 * session log validates a snapshot against the log and ignores one that does not match, so a
 * store may drop or lose snapshots at any time without losing data. `open` on a session held by another
 * writer throws a `SESSION_LOCKED` error; corrupt data throws `SESSION_CORRUPT` naming the
 * file and line, never silently dropping a committed event (only a torn last write may be cut).
 * `append` throws on I/O failure; the caller must treat the session as closed.
 */
export interface SessionStore {
  /** Interface version; a consumer rejects a version it does not know. */
  readonly specificationVersion: 1;
  /** Backend name, for diagnostics (`memory`, `jsonl`, `sqlite`). */
  readonly kind: string;
  /** Creates a new session whose first event is `header`; throws if the id exists. */
  create(header: SessionEvent): Promise<OpenedSession>;
  /** Opens an existing session for appending (or reading only, without taking the lock). */
  open(sessionId: string, options?: SessionStoreOpenOptions): Promise<OpenedSession>;
  /**
   * Streams committed events of `range` in seq order without loading the rest of the log (the
   * events a writer has flushed; a writer's unflushed appends may be missing). Works while a
   * writer holds the session. Throws `SESSION_NOT_FOUND` for an unknown id and
   * `SESSION_CORRUPT` for damaged data in the range; a torn last line is not yielded.
   */
  readRange(sessionId: string, range: SessionRange): AsyncIterable<SessionEvent>;
  /** The session's newest stored snapshot, or undefined when it has none. */
  readSnapshot(sessionId: string): Promise<StoredSnapshot | undefined>;
  /** True when a session with this id exists. */
  exists(sessionId: string): Promise<boolean>;
  /** Lists sessions from their headers, newest first. */
  list(options?: { limit?: number }): Promise<SessionSummary[]>;
}
