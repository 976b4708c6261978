// The snapshot a session writes so that opening it reads the snapshot and the events after it,
// never the whole log. Its content is this package's own versioned format; the store keeps it
// as opaque text. `data` is `<sha-256 of the JSON>\n<JSON>`, so a snapshot edited by hand (or
// torn) fails its digest and is ignored, and the JSON names the event it was taken at by the
// hash of that event's line, so a snapshot that does not belong to the log is ignored too.

import type { JsonValue, SessionEvent, StoredSnapshot } from '@spine/protocol';
import { FORMAT_VERSION } from '@spine/protocol/core';
import { createHash } from './internal/crypto.js';

/** The snapshot format this reader writes and accepts. */
export const SNAPSHOT_VERSION = 1;

/** A projection's state as a snapshot keeps it. */
export interface SnapshotProjectionState {
  /** The projection's version when the state was folded. */
  version: number;
  /** The folded state. */
  state: JsonValue;
}

/** What a snapshot holds: the surface and every piece of derived state, at `seq`. */
export interface SessionSnapshotContent {
  /** Always `session-snapshot`. */
  kind: 'session-snapshot';
  /** {@link SNAPSHOT_VERSION}. */
  version: number;
  /** The log format version of the session. */
  formatVersion: number;
  /** The session id. */
  sessionId: string;
  /** Every event up to and including this seq is folded in. */
  seq: number;
  /** SHA-256 (hex) of `JSON.stringify` of the event at `seq`: ties the snapshot to this log. */
  anchor: string;
  /** The chain head at `seq` (the `h` of that line), when the log carries the chain. */
  chainHead?: string;
  /** The header (seq 1) and every event on the surface, in seq order. */
  events: SessionEvent[];
  /** The surface seqs in surface order. */
  surface: number[];
  /** The surface generation (number of replaces so far). */
  generation: number;
  /** The highest turn and step seen (-1: none). */
  lastTurn: number;
  lastStep: number;
  /** Seqs of events of types the writer did not know (kept, skipped). */
  ignorable: number[];
  /** Call ids of open surface tool calls that reached `tool/started`. */
  openStarted: string[];
  /** Registered projections' states by name. */
  projections: Record<string, SnapshotProjectionState>;
  /** State consumers attached with `attachToSnapshots`, by name. */
  attachments?: Record<string, JsonValue>;
}

/** SHA-256 (hex) of an event as a line of the log (without the newline). */
export function anchorOf(event: SessionEvent): string {
  return createHash('sha256').update(JSON.stringify(event)).digest('hex');
}

/** Serialises snapshot content to the store's opaque text. */
export function encodeSnapshot(content: SessionSnapshotContent): StoredSnapshot {
  const json = JSON.stringify(content);
  const digest = createHash('sha256').update(json).digest('hex');
  return { seq: content.seq, data: `${digest}\n${json}` };
}

/**
 * Parses a stored snapshot, or says why it cannot be used (digest, version, session, shape).
 * Never throws: an unusable snapshot is ignored and rebuilt.
 */
export function decodeSnapshot(
  stored: StoredSnapshot,
  sessionId: string,
): { content: SessionSnapshotContent } | { problem: string } {
  const newline = stored.data.indexOf('\n');
  if (newline !== 64) return { problem: 'no digest line' };
  const json = stored.data.slice(newline + 1);
  const digest = createHash('sha256').update(json).digest('hex');
  if (digest !== stored.data.slice(0, 64)) return { problem: 'digest mismatch (edited or torn)' };
  let content: SessionSnapshotContent;
  try {
    content = JSON.parse(json) as SessionSnapshotContent;
  } catch {
    return { problem: 'not JSON' };
  }
  if (content?.kind !== 'session-snapshot') return { problem: 'not a session snapshot' };
  if (content.version !== SNAPSHOT_VERSION) {
    return { problem: `snapshot version ${String(content.version)}` };
  }
  if (content.formatVersion !== FORMAT_VERSION) {
    return { problem: `log format version ${String(content.formatVersion)}` };
  }
  if (content.sessionId !== sessionId) return { problem: 'another session' };
  if (content.seq !== stored.seq || !Number.isSafeInteger(content.seq) || content.seq < 1) {
    return { problem: 'seq mismatch' };
  }
  if (
    !Array.isArray(content.events) ||
    content.events[0]?.seq !== 1 ||
    !Array.isArray(content.surface) ||
    !Array.isArray(content.ignorable) ||
    !Array.isArray(content.openStarted) ||
    typeof content.projections !== 'object' ||
    content.projections === null
  ) {
    return { problem: 'malformed content' };
  }
  return { content };
}
