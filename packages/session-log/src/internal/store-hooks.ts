// Capabilities the stores of this package offer beyond the `SessionStore` interface, reached
// through symbols so that the interface (and stores written elsewhere) stay as they are. A
// session uses them when the store has them and the interface otherwise.
import type { SessionEvent, SessionStore, StoredSnapshot } from '@spine/protocol';

/** Reads the first `lines` lines of a stored snapshot's text, not the rest. */
export const readSnapshotHead: unique symbol = Symbol('spine.session-log.readSnapshotHead');
/** Reads a seq range as arrays of events (one per chunk read), not one promise per event. */
export const readRangeBatches: unique symbol = Symbol('spine.session-log.readRangeBatches');

/** A seq range read in batches. */
export interface BatchRange {
  fromSeq: number;
  toSeq?: number;
}

/** What a store of this package may offer besides `SessionStore`. */
export interface StoreHooks {
  [readSnapshotHead]?: (sessionId: string, lines: number) => StoredSnapshot | undefined;
  [readRangeBatches]?: (sessionId: string, range: BatchRange) => Iterable<SessionEvent[]>;
}

/** The hooks `store` offers (none for stores from elsewhere). */
export function hooksOf(store: SessionStore): StoreHooks {
  return store as SessionStore & StoreHooks;
}
