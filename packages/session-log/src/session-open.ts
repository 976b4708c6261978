// Opening a session with `history: 'lazy'`: the newest valid snapshot, then the events after it.
// Session (session.ts) passes the hooks below so that this reaches its state without widening
// its public surface.
import type { OpenedSession, SessionEvent, SessionStore } from '@spine/protocol';
import { FORMAT_VERSION } from '@spine/protocol/core';
import {
  BATCH_EVENTS,
  type BatchRange,
  hooksOf,
  openStreaming,
  readRangeBatches,
  type StreamingOpen,
} from './internal/store-hooks.js';
import { surfaceRuns } from './internal/surface-runs.js';
import { formatVersionOf } from './migrations.js';
import { SessionCore } from './session-core.js';
import { anchorOf, decodeSnapshot, encodeSnapshot } from './session-snapshot.js';
import type { SessionOpenOptions } from './types.js';

/** How {@link openLazily} makes a session and reaches its private parts. */
export interface LazyOpenHooks<S> {
  /** A new session over an opened writer: over `core` when given, else nothing loaded yet. */
  make(writer: OpenedSession, core?: SessionCore): S;
  core(session: S): SessionCore;
  writer(session: S): OpenedSession;
  repair(session: S, repaired: OpenedSession['repaired'], recover: boolean): Promise<void>;
  /** Opens the whole log (`history: 'full'`). */
  openFull(): Promise<S>;
  /** Writes a snapshot right after the open returns (`close()` waits for it). */
  snapshotSoon(session: S): void;
}

/**
 * Opens with `history: 'lazy'`. A snapshot that fails its digest, names another format or does
 * not match the log's event at its seq is ignored: the whole log is read once, the lazy state
 * built from it, and (when writable) a new snapshot written.
 */
export async function openLazily<S>(
  options: SessionOpenOptions,
  hooks: LazyOpenHooks<S>,
): Promise<S> {
  const { store, id } = options;
  const readOnly = options.readOnly ?? false;
  const stored = await store.readSnapshot(id);
  const decoded = stored ? decodeSnapshot(stored, id) : undefined;
  const content = decoded && 'content' in decoded ? decoded.content : undefined;
  if (content) {
    const writer = await store.open(id, { readOnly, fromSeq: content.seq });
    const at = writer.events[0];
    let session: S | undefined;
    if (at?.seq === content.seq && anchorOf(at) === content.anchor) {
      session = hooks.make(writer);
      try {
        const core = hooks.core(session);
        await core.restoreFrom(content);
        core.load(writer.events.slice(1));
      } catch {
        // Digest-valid yet inconsistent (a writer bug, or a type now unknown): rebuild.
        session = undefined;
      }
    }
    if (session) {
      try {
        if (!readOnly) {
          await hooks.repair(session, writer.repaired, options.recover ?? true);
          // A projection folded again from the log or migrated: the next open reads a fresh one.
          if (hooks.core(session).stale) hooks.snapshotSoon(session);
        }
        return session;
      } catch (error) {
        await writer.close();
        throw error;
      }
    }
    await writer.close();
  }
  // No usable snapshot: stream the log once, keeping what a lazy session holds, and write one.
  const streamed = await openStreamed(options, hooks);
  if (streamed) return streamed;
  // An old format (migrated or refused) or an unparseable last line: the full path handles it.
  const full = await hooks.openFull();
  const core = hooks.core(full);
  if (!readOnly && core.history.lastSeq > 1) await writeRebuilt(hooks.writer(full), core);
  core.trimToSurface();
  return full;
}

/**
 * The first open of a log without a snapshot: streams the events into the lazy state and never
 * holds the log. Through a store that opens while reading (the JSONL store: lock first, one
 * pass that also finds the last seq and a torn tail, then the writer); otherwise the writer is
 * taken first (lock, torn-tail repair, no events read) and the events read by range. Undefined
 * (writer closed) when the log needs the full path.
 */
async function openStreamed<S>(
  options: SessionOpenOptions,
  hooks: LazyOpenHooks<S>,
): Promise<S | undefined> {
  const { store, id } = options;
  const readOnly = options.readOnly ?? false;
  const streaming = hooksOf(store)[openStreaming];
  let writer: OpenedSession | undefined;
  let opening: StreamingOpen | undefined;
  try {
    const core = new SessionCore({
      id,
      store,
      eventTypes: options.eventTypes,
      projector: options.projector,
      projections: options.projections,
    });
    if (streaming) {
      opening = streaming.call(store, id, { readOnly });
      const { progress } = opening;
      // The last seq is known at the end; until then estimated from the bytes read.
      const expected = () =>
        progress.position > 0
          ? Math.round((progress.lastSeq * progress.size) / progress.position)
          : undefined;
      const loaded = await loadStreamed(core, options, opening.batches, expected);
      if (!loaded || progress.lastSeq < 1) {
        opening.abort();
        return undefined;
      }
      writer = opening.finish();
    } else {
      // A seq past the last event: the store reads no events, `lastSeq` says where the log ends.
      writer = await store.open(id, { readOnly, fromSeq: Number.MAX_SAFE_INTEGER });
      const lastSeq = writer.lastSeq;
      const all = batches(store, id, { fromSeq: 1, toSeq: lastSeq });
      if (lastSeq < 1 || (await loadStreamed(core, options, all, () => lastSeq)) !== lastSeq) {
        await writer.close();
        return undefined;
      }
    }
    const session = hooks.make(writer, core);
    if (!readOnly) {
      await hooks.repair(session, writer.repaired, options.recover ?? true);
      // Written once the caller has the session (crash-safe like any snapshot; until it is
      // written, a next open streams the log again).
      if (core.history.lastSeq > 1) hooks.snapshotSoon(session);
    }
    return session;
  } catch (error) {
    if (writer) await writer.close();
    else opening?.abort();
    throw error;
  }
}

/** Writes a snapshot of the rebuilt state; a failed write only means the next open rebuilds. */
async function writeRebuilt(writer: OpenedSession, core: SessionCore): Promise<void> {
  const rebuilt = core.snapshotContent();
  await writer.writeSnapshot(encodeSnapshot(rebuilt)).then(
    () => {
      core.snapshotSeq = rebuilt.seq;
    },
    () => {},
  );
}

/**
 * Builds a lazy session's state from the whole log without holding it. One streamed pass puts
 * every event through what `SessionCore.load` does (surface, turns, projections, unknown
 * types), holding only the header, the last event and the surface events of the log's last
 * stretch; surface events from before it that are still on the surface at the end (few after
 * compactions) are read again by seq range. Holding every surface event would keep most events
 * alive until a later compaction replaced them, which costs more garbage collection than the
 * parse itself. `expected` gives the log's last seq (or an estimate; undefined: not known yet),
 * which places that last stretch. Returns the last seq read, or false, keeping nothing, when the
 * log needs the full path (its header names another format version: migrated or refused there).
 * The caller checks that seq against the log's (an unparseable last line ends the events early).
 *
 * @throws a {@link SessionCorruptError} for an event that replaces a missing surface region, as
 *   `SessionCore.load` does.
 * @throws an {@link UnknownEventTypeError} for a surface event of an unregistered type, as
 *   `SessionCore.load` does.
 */
async function loadStreamed(
  core: SessionCore,
  { store, id }: SessionOpenOptions,
  events: AsyncIterable<SessionEvent[]> | Iterable<SessionEvent[]>,
  expected: () => number | undefined,
): Promise<number | false> {
  const started = new Set<string>();
  const surface = core.surfaceState;
  // Surface events near the end of the log are held as they come (after compactions the final
  // surface lies there); older ones that stay on the surface are read again below.
  let holdFrom: number | undefined;
  const held = new Map<number, SessionEvent>();
  let header: SessionEvent | undefined;
  let last: SessionEvent | undefined;
  for await (const batch of events) {
    if (holdFrom === undefined) {
      const lastSeq = expected();
      if (lastSeq !== undefined) holdFrom = lastSeq - Math.max(8192, Math.floor(lastSeq / 32));
    }
    for (const event of batch) {
      if (event.seq === 1) {
        if (event.type !== 'session/header' || formatVersionOf(event) !== FORMAT_VERSION) {
          return false;
        }
        header = event;
      }
      core.applyTrusted(event);
      const op = event.surfaceOp;
      if (op && event.seq >= (holdFrom ?? 0)) {
        held.set(event.seq, event);
        if (op.op === 'replace' && held.size > 2 * surface.seqs.length + 1024) {
          holdOnly(held, surface.seqs);
        }
      }
      if (event.type === 'tool/started') {
        const callId = (event.body as { toolCallId?: unknown }).toolCallId;
        if (typeof callId === 'string') started.add(callId);
      }
      last = event;
    }
  }
  if (!last || !header) return false;
  const lastSeq = last.seq;
  holdOnly(held, surface.seqs);
  const resident = new Map<number, SessionEvent>([[1, header], ...held]);
  const wanted = new Set(surface.seqs.filter((seq) => seq !== 1 && !held.has(seq)));
  wanted.delete(lastSeq);
  for (const [fromSeq, toSeq] of surfaceRuns([...wanted], lastSeq)) {
    for await (const batch of batches(store, id, { fromSeq, toSeq })) {
      for (const event of batch) if (wanted.has(event.seq)) resident.set(event.seq, event);
    }
  }
  for (const seq of wanted) if (!resident.has(seq)) return false;
  resident.delete(lastSeq);
  core.history.restore(lastSeq, [...resident.values()]);
  core.history.push(last);
  const open = new Set(surface.openCalls().map((call) => call.toolCallId));
  core.startedBefore = [...started].filter((callId) => open.has(callId));
  return lastSeq;
}

/** Drops from `held` every event not on the surface. */
function holdOnly(held: Map<number, SessionEvent>, surface: readonly number[]): void {
  const on = new Set(surface);
  for (const seq of held.keys()) if (!on.has(seq)) held.delete(seq);
}

/**
 * The events of a range in arrays: through the store's batched read when it has one (one
 * promise round per batch, not per event), else gathered from `readRange`.
 */
async function* batches(
  store: SessionStore,
  id: string,
  range: BatchRange,
): AsyncGenerator<SessionEvent[]> {
  const read = hooksOf(store)[readRangeBatches];
  if (read) {
    yield* read.call(store, id, range);
    return;
  }
  let batch: SessionEvent[] = [];
  for await (const event of store.readRange(id, range)) {
    batch.push(event);
    if (batch.length >= BATCH_EVENTS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
