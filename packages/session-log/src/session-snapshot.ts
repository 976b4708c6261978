// The snapshot a session writes so that opening it reads the snapshot and the events after it,
// never the whole log. Its content is this package's own versioned format; the store keeps it
// as opaque text in two parts, so that a full open (which only wants the small state) never
// reads, hashes or parses the surface events:
//
//   spine-snapshot 2 <sha-256 of the state line>\n
//   <state JSON: everything but the events, with the sha-256 and length of the events line>\n
//   <events JSON: the header and the surface events, one array>
//
// A part edited by hand (or torn) fails its digest and the snapshot is ignored; the state names
// the event it was taken at by the hash of that event's line, so a snapshot that does not belong
// to the log is ignored too. Version 1 (one digest over one JSON) is ignored and rebuilt.

import type { JsonValue, SessionEvent, StoredSnapshot } from '@spine/protocol';
import { FORMAT_VERSION } from '@spine/protocol/core';
import { createHash } from './internal/crypto.js';

/** The snapshot format this reader writes and accepts. */
export const SNAPSHOT_VERSION = 2;

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

/** A snapshot's state part: everything but the events, and what ties the events part to it. */
export interface SnapshotState extends Omit<SessionSnapshotContent, 'events'> {
  /** SHA-256 (hex) of the events part (the JSON array of the header and surface events). */
  eventsDigest: string;
  /** Length of the events part in UTF-16 code units. */
  eventsLength: number;
}

/** How a stored snapshot's text begins, before the state part's digest. */
const MAGIC = `spine-snapshot ${SNAPSHOT_VERSION} `;
const DIGEST_LENGTH = 64;

/** The number of lines a snapshot's state part takes from the start of its text. */
export const SNAPSHOT_HEAD_LINES = 2;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** SHA-256 (hex) of an event as a line of the log (without the newline). */
export function anchorOf(event: SessionEvent): string {
  return sha256(JSON.stringify(event));
}

/** Serialises snapshot content to the store's opaque text (state part, then events part). */
export function encodeSnapshot(content: SessionSnapshotContent): StoredSnapshot {
  const { events, ...rest } = content;
  const eventsJson = JSON.stringify(events);
  const state: SnapshotState = {
    ...rest,
    eventsDigest: sha256(eventsJson),
    eventsLength: eventsJson.length,
  };
  const stateJson = JSON.stringify(state);
  return { seq: content.seq, data: `${MAGIC}${sha256(stateJson)}\n${stateJson}\n${eventsJson}` };
}

/**
 * Parses and checks a snapshot's state part (digest, versions, session, seq, shape) without
 * reading its events part; `data` may end right after the state line. Never throws.
 */
export function decodeSnapshotState(
  stored: StoredSnapshot,
  sessionId: string,
): { state: SnapshotState; eventsAt: number } | { problem: string } {
  const { data } = stored;
  const first = data.indexOf('\n');
  if (!data.startsWith(MAGIC) || first !== MAGIC.length + DIGEST_LENGTH) {
    return { problem: data.startsWith('spine-snapshot ') ? 'snapshot version' : 'no digest line' };
  }
  const second = data.indexOf('\n', first + 1);
  if (second < 0) return { problem: 'no state line (torn)' };
  const stateJson = data.slice(first + 1, second);
  if (sha256(stateJson) !== data.slice(MAGIC.length, first)) {
    return { problem: 'state digest mismatch (edited or torn)' };
  }
  let state: SnapshotState;
  try {
    state = JSON.parse(stateJson) as SnapshotState;
  } catch {
    return { problem: 'not JSON' };
  }
  const problem = stateProblem(state, stored.seq, sessionId);
  return problem ? { problem } : { state, eventsAt: second + 1 };
}

function stateProblem(state: SnapshotState, seq: number, sessionId: string): string | undefined {
  if (state?.kind !== 'session-snapshot') return 'not a session snapshot';
  if (state.version !== SNAPSHOT_VERSION) return `snapshot version ${String(state.version)}`;
  if (state.formatVersion !== FORMAT_VERSION) {
    return `log format version ${String(state.formatVersion)}`;
  }
  if (state.sessionId !== sessionId) return 'another session';
  if (state.seq !== seq || !Number.isSafeInteger(state.seq) || state.seq < 1) {
    return 'seq mismatch';
  }
  if (
    typeof state.eventsDigest !== 'string' ||
    !Number.isSafeInteger(state.eventsLength) ||
    !Array.isArray(state.surface) ||
    !Array.isArray(state.ignorable) ||
    !Array.isArray(state.openStarted) ||
    typeof state.projections !== 'object' ||
    state.projections === null
  ) {
    return 'malformed content';
  }
  return undefined;
}

/**
 * Parses a stored snapshot, both parts, or says why it cannot be used (a digest, a version,
 * the session, the shape). Never throws: an unusable snapshot is ignored and rebuilt.
 */
export function decodeSnapshot(
  stored: StoredSnapshot,
  sessionId: string,
): { content: SessionSnapshotContent } | { problem: string } {
  const head = decodeSnapshotState(stored, sessionId);
  if ('problem' in head) return head;
  const { eventsDigest, eventsLength, ...rest } = head.state;
  const eventsJson = stored.data.slice(head.eventsAt);
  if (eventsJson.length !== eventsLength || sha256(eventsJson) !== eventsDigest) {
    return { problem: 'events digest mismatch (edited or torn)' };
  }
  let events: SessionEvent[];
  try {
    events = JSON.parse(eventsJson) as SessionEvent[];
  } catch {
    return { problem: 'not JSON' };
  }
  if (!Array.isArray(events) || events[0]?.seq !== 1) return { problem: 'malformed content' };
  return { content: { ...rest, events } };
}
