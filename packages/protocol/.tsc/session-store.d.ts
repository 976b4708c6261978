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
/** What {@link SessionStore.open} hands back: the committed events and a writer. */
export interface OpenedSession {
  /** Every committed event, in seq order; torn or partial events already removed. */
  readonly events: readonly SessionEvent[];
  /** Set when opening repaired the stored data (for example a torn last line was cut). */
  readonly repaired?: {
    reason: string;
    truncatedBytes?: number;
  };
  /** Appends already-validated events. Returns once they are durable per the store's policy. */
  append(events: readonly SessionEvent[]): void;
  /** Makes every appended event durable now. */
  flush(): Promise<void>;
  /** Called at turn boundaries; stores with a `per-turn` durability policy sync here. */
  checkpoint?(): void;
  /** Releases the lock and file handles. Idempotent. */
  close(): Promise<void>;
}
/**
 * Durable storage of session event logs. Implementations: memory, JSONL (default), SQLite.
 *
 * Contract: a store never rewrites committed events. `open` on a session held by another
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
  open(
    sessionId: string,
    options?: {
      readOnly?: boolean;
    },
  ): Promise<OpenedSession>;
  /** True when a session with this id exists. */
  exists(sessionId: string): Promise<boolean>;
  /** Lists sessions from their headers, newest first. */
  list(options?: { limit?: number }): Promise<SessionSummary[]>;
}
//# sourceMappingURL=session-store.d.ts.map
