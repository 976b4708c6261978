// Session: the public API of a live log and what it owns (the store's writer and lock, listeners,
// automatic snapshot scheduling, recovery on open, forks). Its state and the mechanics over it
// (history, surface, folds, snapshot content and restore) live in session-core.ts, lazy opening
// in session-open.ts, snapshot scheduling in session-autosnapshot.ts. It is over 400 lines because
// of the TSDoc of the public methods (the code is about 280).

import type {
  AppendOptions,
  DerivedMessages,
  EventTypeDefinition,
  JsonValue,
  Message,
  OpenedSession,
  Projector,
  SessionBlobs,
  SessionEvent,
  SessionHeaderBody,
  SessionListener,
  SessionLog,
  SessionRange,
  SessionStore,
} from '@spine/protocol';
import { assertSpecificationVersion } from '@spine/protocol/core';
import { InvalidEventError, SessionClosedError } from './errors.js';
import { loadBuiltinSchemas } from './event-types.js';
import { hash, randomUUID } from './internal/crypto.js';
import { anchorForFork } from './internal/fork-anchor.js';
import { SessionListeners } from './internal/listeners.js';
import { forkAnchor, hooksOf } from './internal/store-hooks.js';
import { SnapshotScheduler } from './session-autosnapshot.js';
import { SessionCore } from './session-core.js';
import { currentFormatEvents, headerEvent } from './session-format.js';
import { openLazily } from './session-open.js';
import type {
  SessionCreateOptions,
  SessionForkOptions,
  SessionOpenOptions,
  SessionProjection,
  SnapshotPolicy,
} from './types.js';

interface SessionInit {
  id: string;
  store: SessionStore;
  writer: OpenedSession;
  readOnly: boolean;
  eventTypes: readonly EventTypeDefinition[] | undefined;
  projector: Projector | undefined;
  projections: readonly SessionProjection[] | undefined;
  snapshots: SnapshotPolicy | undefined;
  /** A core already loaded (the streamed first open builds it before the writer exists). */
  core?: SessionCore;
}

/** Events appended since the last snapshot before one is written automatically. */
const DEFAULT_SNAPSHOT_AFTER = 512;

/**
 * A live session: the append-only log, its surface and the messages derived from it, backed
 * by a `SessionStore` (from `@spine/protocol`). Create one with {@link Session.create} or {@link Session.open}.
 *
 * Contract: `append` validates and throws a typed error on bad input, leaving the log
 * untouched; an I/O failure throws too and the session refuses further appends.
 *
 * @example
 * ```ts
 * const session = await Session.create({ store: createJsonlStore({ dir: '.spine/sessions' }) });
 * session.append('user/message', { content: 'hi', source: 'user' }, { surfaceOp: { op: 'append' } });
 * const { messages } = session.deriveMessages();
 * await session.close();
 * ```
 */
export class Session implements SessionLog {
  /** The session id. */
  readonly id: string;
  /** The store this session lives in. */
  readonly store: SessionStore;
  /** True when opened with `readOnly`: appends are refused and no lock is held. */
  readonly readOnly: boolean;
  private readonly writer: OpenedSession;
  private readonly core: SessionCore;
  private readonly snapshots: SnapshotScheduler;
  private readonly listeners = new SessionListeners();
  private state: 'open' | 'closed' | 'failed' = 'open';

  private constructor(init: SessionInit) {
    this.id = init.id;
    this.store = init.store;
    this.writer = init.writer;
    this.readOnly = init.readOnly;
    this.core = init.core ?? new SessionCore(init);
    const after =
      init.readOnly || init.snapshots === false
        ? undefined
        : (init.snapshots?.afterEvents ?? DEFAULT_SNAPSHOT_AFTER);
    this.snapshots = new SnapshotScheduler(this.core, init.writer, after);
  }

  /**
   * Creates a new session whose `session/header` (seq 1) records id, cwd, title, model and parent.
   * A store that cannot write (the JSONL and SQLite stores when the file system refuses) throws a
   * `StoreUnavailableError` (code `STORE_UNAVAILABLE`) naming the path and the system's code.
   *
   * @throws a {@link SessionExistsError} when the id already exists in the store.
   * @example
   * ```ts
   * const session = await Session.create({ store: createMemoryStore(), title: 'scratch' });
   * ```
   */
  static async create(options: SessionCreateOptions): Promise<Session> {
    assertSpecificationVersion('SessionStore', options.store);
    await loadBuiltinSchemas(); // zod loads with the first session, not on import
    const id = options.id ?? randomUUID();
    const event = headerEvent(id, options);
    const writer = await options.store.create(event);
    const session = new Session({
      id,
      store: options.store,
      writer,
      readOnly: false,
      eventTypes: options.eventTypes,
      projector: options.projector,
      projections: options.projections,
      snapshots: options.snapshots,
    });
    session.core.load([event]);
    return session;
  }

  /**
   * Opens a stored session. Unless `readOnly`, takes the store's writer lock and repairs a crash:
   * a torn last write is recorded, and (with `recover`, the default) every surface tool call without
   * a result gets one, followed by a `session/recovered` event. A session the store cannot read
   * (the JSONL and SQLite stores when the file system refuses, e.g. `EACCES` on its folder) gives
   * a `StoreUnavailableError` (code `STORE_UNAVAILABLE`), never `SessionNotFoundError`.
   *
   * @throws a {@link SessionNotFoundError} when the id is not in the store.
   * @throws a {@link SessionLockedError} when another writer holds the session's lock (not with
   *   `readOnly`).
   * @throws a {@link SessionCorruptError} when the stored events are damaged beyond a torn last
   *   write.
   * @throws an {@link UnknownEventTypeError} when the log holds a surface event of an unregistered
   *   type.
   * @throws an {@link UnsupportedFormatError} for a format version newer than this package, or an
   *   older one without `readOnly`.
   * @example
   * ```ts
   * const session = await Session.open({ store, id: 'a1b2', readOnly: true });
   * ```
   */
  static async open(options: SessionOpenOptions): Promise<Session> {
    assertSpecificationVersion('SessionStore', options.store);
    await loadBuiltinSchemas(); // zod loads with the first session, not on import
    if (options.history === 'lazy') return Session.openLazily(options);
    const readOnly = options.readOnly ?? false;
    const writer = await options.store.open(options.id, { readOnly });
    try {
      const events = currentFormatEvents(writer.events, {
        where: `${options.store.kind}:${options.id}`,
        sessionId: options.id,
        readOnly,
      });
      const session = new Session({
        id: options.id,
        store: options.store,
        writer,
        readOnly,
        eventTypes: options.eventTypes,
        projector: options.projector,
        projections: options.projections,
        snapshots: options.snapshots,
      });
      session.core.load(events);
      if (events === writer.events) await session.core.adoptSnapshot();
      if (!readOnly) await session.repair(writer.repaired, options.recover ?? true);
      return session;
    } catch (error) {
      await writer.close();
      throw error;
    }
  }

  /** Opens with `history: 'lazy'` (see session-open.ts), reaching this class through hooks. */
  private static openLazily(options: SessionOpenOptions): Promise<Session> {
    return openLazily<Session>(options, {
      make: (writer, core) =>
        new Session({
          core,
          id: options.id,
          store: options.store,
          writer,
          readOnly: options.readOnly ?? false,
          eventTypes: options.eventTypes,
          projector: options.projector,
          projections: options.projections,
          snapshots: options.snapshots,
        }),
      core: (session) => session.core,
      writer: (session) => session.writer,
      repair: (session, repaired, recover) => session.repair(repaired, recover),
      openFull: () => Session.open({ ...options, history: 'full' }),
      snapshotSoon: (session) => session.snapshots.soon(),
    });
  }

  /** The body of the `session/header` event. */
  get header(): SessionHeaderBody {
    return this.core.header;
  }

  /** The seq of the last event. */
  get lastSeq(): number {
    return this.core.history.lastSeq;
  }

  /** Bumps on every surface `replace`. */
  get replaceGeneration(): number {
    return this.core.surfaceState.generation;
  }

  /**
   * Validates and appends one event, assigning the next seq.
   *
   * @throws an {@link InvalidEventError} for a `session/header`, a body that is not plain JSON or
   *   fails its type's check, or malformed options.
   * @throws an {@link UnknownEventTypeError} for a type that is neither built in nor registered.
   * @throws an {@link IllegalSurfaceOpError} for a malformed surface op, one on a type that takes
   *   no part in the surface, or one the surface refuses (a missing region, a split tool pair).
   * @throws a {@link SessionClosedError} when the session is read-only or closed.
   */
  append<Body = unknown>(
    type: string,
    body: Body,
    options: AppendOptions = {},
  ): SessionEvent<Body> {
    if (this.state !== 'open' || this.readOnly) {
      throw new SessionClosedError({
        sessionId: this.id,
        reason: this.readOnly ? 'read-only' : this.state === 'failed' ? 'failed' : 'closed',
      });
    }
    const event = this.core.prepare(type, body, options) as SessionEvent<Body>;
    try {
      this.writer.append([event]);
    } catch (error) {
      this.state = 'failed';
      throw error;
    }
    this.core.commit(event);
    this.listeners.emit(event);
    return event;
  }

  /**
   * The event with this seq, if any. A lazily opened session holds only the header, the
   * surface and the events since its snapshot: read others with {@link Session.readEvents}.
   */
  get(seq: number): SessionEvent | undefined {
    return this.core.history.get(seq);
  }

  /**
   * Events with `from <= seq <= to` (defaults: the whole log), in order. A lazily opened
   * session returns only the events it holds (see {@link Session.get}).
   */
  events(range: { from?: number; to?: number } = {}): readonly SessionEvent[] {
    const from = Math.max(1, range.from ?? 1);
    const to = Math.min(this.core.history.lastSeq, range.to ?? this.core.history.lastSeq);
    return this.core.history.range(from, to);
  }

  /**
   * Streams the events of `range` in seq order, whether held in memory or not: events before
   * the held tail come from the store, the rest from memory.
   *
   * @throws an {@link InvalidRangeError} for a malformed range.
   */
  async *readEvents(range: SessionRange): AsyncIterable<SessionEvent> {
    yield* this.core.readEvents(range);
  }

  /**
   * The state of a registered projection (see {@link SessionProjection}), folded over every
   * event so far. Treat it as read-only.
   *
   * @throws an {@link InvalidEventError} for a name no projection was registered under.
   */
  projection<State extends JsonValue = JsonValue>(name: string): State {
    const fold = this.core.folds.get(name);
    if (!fold) {
      throw new InvalidEventError({
        message: `No projection is named ${JSON.stringify(name)}; pass it in \`projections\` when the session is created or opened`,
      });
    }
    return fold.state as State;
  }

  /**
   * Registers state captured into every snapshot this session writes, under `name`; `capture`
   * must return plain JSON and must not throw. Registering a name again replaces its capture.
   */
  attachToSnapshots(name: string, capture: () => JsonValue): void {
    this.core.captures.set(name, capture);
  }

  /**
   * What `name` held in the snapshot this session was opened from (lazily, or fully when a valid
   * snapshot was found), with that snapshot's seq; undefined otherwise.
   */
  snapshotAttachment(name: string): { seq: number; value: JsonValue } | undefined {
    const value = this.core.opened?.attachments[name];
    return this.core.opened && value !== undefined
      ? { seq: this.core.opened.seq, value }
      : undefined;
  }

  /**
   * Writes a snapshot at the last seq now (the store keeps the newest one). Opening with
   * `history: 'lazy'` then reads it and the events after it. Automatic snapshots follow the
   * `snapshots` option.
   *
   * @throws a {@link SessionClosedError} from a read-only or closed session.
   */
  async snapshot(): Promise<void> {
    if (this.state !== 'open' || this.readOnly) {
      throw new SessionClosedError({
        sessionId: this.id,
        reason: this.readOnly ? 'read-only' : this.state === 'failed' ? 'failed' : 'closed',
      });
    }
    await this.snapshots.now();
  }

  /** The seqs currently on the surface, in order (a copy). */
  surface(): readonly number[] {
    return this.core.surfaceState.seqs.slice();
  }

  /**
   * The model history derived from the surface. Incremental: the cost is proportional to the
   * surface events added since the last call; a replace starts fresh arrays (copying the
   * untouched prefix). The returned arrays are shared and grow in place on later calls until the
   * next replace: read or copy them now.
   */
  deriveMessages(): DerivedMessages {
    return this.core.deriver.derive();
  }

  /**
   * The message(s) a surface event projects to: a registered type's own projection, otherwise
   * this session's projector. The projection `deriveMessages` uses; the event need not be on
   * the surface now (compaction and recall render replaced events with it).
   *
   * @throws an {@link UnknownEventTypeError} for a type with no projection.
   */
  project(event: SessionEvent): readonly Message[] {
    return this.core.projectEvent(event);
  }

  /** True when `seq` is an event of a type this reader does not know, kept and skipped. */
  isIgnorable(seq: number): boolean {
    return this.core.ignorable.has(seq);
  }

  /** Calls `listener` for every event appended from now on; returns an unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    return this.listeners.add(listener);
  }

  /**
   * Registers a custom event type (with its projection when it is surface-bearing).
   *
   * @throws an {@link InvalidEventError} for a built-in or conflicting type.
   */
  registerEventType(definition: EventTypeDefinition): void {
    this.core.registry.register(definition);
  }

  /** Marks a turn boundary: stores with a `per-turn` fsync policy make appended events durable here. */
  checkpoint(): void {
    if (this.state !== 'open') return;
    this.writer.checkpoint?.();
    if (this.snapshots.due()) this.snapshots.inBackground();
  }

  /**
   * The session's blob store (image bytes by SHA-256), when its store keeps blobs: `put` hashes
   * the bytes and stores them once; `get` returns them as stored (unchecked).
   */
  get blobs(): SessionBlobs | undefined {
    const blobs = this.writer.blobs;
    if (!blobs) return undefined;
    return {
      put(bytes: Uint8Array): string {
        const sha256 = hash('sha256', bytes, 'hex');
        blobs.put(sha256, bytes);
        return sha256;
      },
      get: (sha256: string) => blobs.get(sha256),
    };
  }

  /** The chain value of the last line the store wrote and its seq, when it chains its lines. */
  chainHead(): { seq: number; h: string } | undefined {
    return this.state === 'open' ? this.writer.chainHead?.() : undefined;
  }

  /**
   * Answers every surface tool call still without a result as recovery on open does (outcome
   * unknown when it reached `tool/started`, not started otherwise) and records
   * `session/recovered`; for a session opened with `recover: false` once the caller has settled
   * what it could (verified outcomes, subagents). Returns how many events it appended (0: nothing
   * was open).
   *
   * @throws a {@link SessionClosedError} when the session is read-only or closed.
   */
  async recover(): Promise<number> {
    if (this.state !== 'open' || this.readOnly) {
      throw new SessionClosedError({
        sessionId: this.id,
        reason: this.readOnly ? 'read-only' : this.state === 'failed' ? 'failed' : 'closed',
      });
    }
    const planned = this.core.recoveryPlan(undefined, true);
    if (planned.length === 0) return 0;
    await this.repair(undefined, true);
    return planned.length;
  }

  /** Makes every appended event durable now, whatever the store's fsync policy. */
  async flush(): Promise<void> {
    if (this.state === 'open') await this.writer.flush();
  }

  /** Copies the blobs `event`'s images reference into `child`'s blob store. */
  private copyBlobsTo(child: Session, event: SessionEvent): void {
    const images = (event.body as { images?: unknown } | undefined)?.images;
    if (!Array.isArray(images) || !this.writer.blobs || !child.writer.blobs) return;
    for (const image of images as { sha256?: unknown }[]) {
      if (typeof image?.sha256 !== 'string') continue;
      const bytes = this.writer.blobs.get(image.sha256);
      if (bytes) child.writer.blobs.put(image.sha256, bytes);
    }
  }

  /**
   * Makes a new session that shares this one's history up to `atSeq` (same seqs), with
   * `header.parent` recording where it came from. Tool calls left open at `atSeq` are answered
   * as on recovery unless `recover` is false.
   *
   * A JSONL parent is verified first (`verifyJsonlLog`), and the fork's header records the
   * parent's chain values at seq 1 and `atSeq` (`parent.chain`), so the chain records of the
   * copied request headers stay checkable.
   *
   * @throws an {@link InvalidEventError} when `atSeq` is outside `1..lastSeq`.
   * @throws a {@link SessionCorruptError} when the parent's log does not verify.
   */
  async fork(atSeq: number, options: SessionForkOptions = {}): Promise<Session> {
    if (!Number.isInteger(atSeq) || atSeq < 1 || atSeq > this.lastSeq) {
      throw new InvalidEventError({
        message: `Cannot fork session ${this.id} at seq ${atSeq}: it is outside 1..${this.lastSeq}; pass a seq of the log (nothing was created)`,
      });
    }
    const { sessionId: _id, createdAt: _at, parent: _parent, ...rest } = this.header;
    // The parent must verify (a fork re-seals what it copies), and the fork's header records the
    // parent's chain values that the copied request headers' records are checked against.
    if (this.state === 'open' && !this.readOnly) await this.writer.flush();
    const values = hooksOf(this.store)[forkAnchor]?.(this.id, atSeq);
    const anchor = values && anchorForFork(this.header, atSeq, values);
    const child = await Session.create({
      ...rest,
      store: options.store ?? this.store,
      id: options.id ?? randomUUID(),
      parent: anchor ? { sessionId: this.id, atSeq, chain: anchor } : { sessionId: this.id, atSeq },
      eventTypes: this.core.registry.definitions(),
      projector: this.core.projector,
    });
    try {
      let batch: SessionEvent[] = [];
      const copy = (): void => {
        // The images the copied events reference go with them (blobs before events).
        for (const event of batch) this.copyBlobsTo(child, event);
        child.writer.append(batch);
        child.core.load(batch);
        batch = [];
      };
      for await (const event of this.readEvents({ fromSeq: 2, toSeq: atSeq })) {
        batch.push(event);
        if (batch.length === 1000) copy();
      }
      if (batch.length > 0) copy();
      await child.repair(undefined, options.recover ?? true);
      return child;
    } catch (error) {
      await child.close().catch(() => {});
      throw error;
    }
  }

  /**
   * Writes what is still buffered (synced as the store's fsync policy says; call `flush()` first
   * to force a sync) and releases the store's lock. Idempotent.
   */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    if (this.state === 'open' && this.snapshots.due()) this.snapshots.inBackground();
    await this.snapshots.settled();
    this.state = 'closed';
    try {
      await this.writer.close();
    } finally {
      this.listeners.clear();
    }
  }

  private async repair(repaired: OpenedSession['repaired'], recover: boolean): Promise<void> {
    const planned = this.core.recoveryPlan(repaired, recover);
    if (planned.length === 0) return;
    for (const item of planned) this.append(item.type, item.body, item.options);
    await this.writer.flush();
  }
}
