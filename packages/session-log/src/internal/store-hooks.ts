// Capabilities the stores of this package offer beyond the `SessionStore` interface, reached
// through symbols so that the interface (and stores written elsewhere) stay as they are. A
// session uses them when the store has them and the interface otherwise.
import type { OpenedSession, SessionEvent, SessionStore, StoredSnapshot } from '@spine/protocol';

/**
 * Events per batch of the batched reads (jsonl-read.ts) and the streamed first open: enough that
 * the promise round per batch is negligible, few enough that a batch dies young. Batches of 4,096
 * kept megabytes of events alive across scavenges (promoted, then collected as old objects): a
 * first open of 100k realistic events took 1.35 × read + split + parse in CPU, 0.81–0.91 × at 64.
 */
export const BATCH_EVENTS = 64;

/** Reads the first `lines` lines of a stored snapshot's text, not the rest. */
export const readSnapshotHead: unique symbol = Symbol('spine.session-log.readSnapshotHead');
/** Reads a seq range as arrays of {@link BATCH_EVENTS} events, not one promise per event. */
export const readRangeBatches: unique symbol = Symbol('spine.session-log.readRangeBatches');

/**
 * Opens a session for writing while reading it once from the start: the lock is taken first,
 * the whole log comes in batches, and the writer is made from what that read found (no
 * separate pass for the last seq or a torn tail).
 */
export const openStreaming: unique symbol = Symbol('spine.session-log.openStreaming');

/**
 * Verifies a session's chain before it is forked and returns its chain values at seq 1 and at
 * the fork point (undefined when the log is not chained from its header). Throws
 * `SessionCorruptError` when the log does not verify: a fork must not re-seal damage.
 */
export const forkAnchor: unique symbol = Symbol('spine.session-log.forkAnchor');

/** A session being opened by {@link openStreaming}. */
export interface StreamingOpen {
  /** Every event from seq 1, in batches; iterate once. */
  batches: Iterable<SessionEvent[]>;
  /** The log's size in bytes, the bytes read so far and the last seq read so far. */
  readonly progress: { readonly size: number; readonly position: number; readonly lastSeq: number };
  /** Once `batches` is exhausted: the writer (a torn last line truncated unless read-only). */
  finish(): OpenedSession;
  /** Gives up (releases the lock) without making a writer. */
  abort(): void;
}

/** A seq range read in batches. */
export interface BatchRange {
  fromSeq: number;
  toSeq?: number;
}

/** What a store of this package may offer besides `SessionStore`. */
export interface StoreHooks {
  [readSnapshotHead]?: (sessionId: string, lines: number) => StoredSnapshot | undefined;
  [readRangeBatches]?: (sessionId: string, range: BatchRange) => Iterable<SessionEvent[]>;
  [openStreaming]?: (sessionId: string, options: { readOnly: boolean }) => StreamingOpen;
  [forkAnchor]?: (sessionId: string, atSeq: number) => { start: string; end: string } | undefined;
}

/** The hooks `store` offers (none for stores from elsewhere). */
export function hooksOf(store: SessionStore): StoreHooks {
  return store as SessionStore & StoreHooks;
}
