// Over 400 lines because Session is the single writer of a log: append validation, the surface,
// derivation, projection, durability hooks and snapshots (writing, lazy opening, restoring) share
// its private state (split parts: session-*.ts). Next split: the snapshot half into a helper that
// gets the state through a narrow internal interface.
import { randomUUID } from 'node:crypto';
import type {
  AppendOptions,
  DerivedMessages,
  EventTypeDefinition,
  JsonValue,
  Message,
  OpenedSession,
  Projector,
  SessionEvent,
  SessionHeaderBody,
  SessionListener,
  SessionLog,
  SessionRange,
  SessionStore,
} from '@spine/protocol';
import { assertSpecificationVersion, findNonJson } from '@spine/protocol';
import {
  IllegalSurfaceOpError,
  InvalidEventError,
  SessionClosedError,
  SessionCorruptError,
  UnknownEventTypeError,
} from './errors.js';
import { EventTypeRegistry } from './event-types.js';
import { isPlainJson } from './internal/json-check.js';
import { SessionListeners } from './internal/listeners.js';
import { checkRange } from './internal/range.js';
import { createDefaultProjector } from './projector.js';
import { MessageDeriver } from './session-derive.js';
import { currentFormatEvents, headerEvent } from './session-format.js';
import { EventHistory } from './session-history.js';
import { planRecovery } from './session-recovery.js';
import {
  anchorOf,
  decodeSnapshot,
  encodeSnapshot,
  type SessionSnapshotContent,
  SNAPSHOT_VERSION,
} from './session-snapshot.js';
import { SurfaceState } from './session-surface.js';
import { buildEvent, checkAppendOptions } from './session-validate.js';
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
  private readonly history = new EventHistory();
  private readonly folds = new Map<string, { definition: SessionProjection; state: JsonValue }>();
  private readonly snapshotAfter: number | undefined;
  /** The seq of the newest snapshot this session wrote or opened from (0: none known). */
  private snapshotSeq = 0;
  private snapshotting: Promise<void> | undefined;
  /** Open surface calls that reached tool/started before the tail held in memory. */
  private startedBefore: readonly string[] = [];
  private readonly captures = new Map<string, () => JsonValue>();
  /** The attachments of the snapshot this session was opened from, and its seq. */
  private opened: { seq: number; attachments: Record<string, JsonValue> } | undefined;
  private readonly surfaceState = new SurfaceState();
  private readonly registry = new EventTypeRegistry();
  private readonly deriver: MessageDeriver;
  private readonly projector: Projector;
  private readonly listeners = new SessionListeners();
  private readonly ignorable = new Set<number>();
  private state: 'open' | 'closed' | 'failed' = 'open';
  private lastTurn = -1;
  private lastStep = -1;

  private constructor(init: SessionInit) {
    this.id = init.id;
    this.store = init.store;
    this.writer = init.writer;
    this.readOnly = init.readOnly;
    this.projector = init.projector ?? createDefaultProjector();
    this.snapshotAfter =
      init.snapshots === false
        ? undefined
        : (init.snapshots?.afterEvents ?? DEFAULT_SNAPSHOT_AFTER);
    for (const definition of init.eventTypes ?? []) this.registry.register(definition);
    for (const definition of init.projections ?? []) {
      if (this.folds.has(definition.name)) {
        throw new InvalidEventError({
          type: 'session/header',
          reason: `two projections are named ${JSON.stringify(definition.name)}`,
        });
      }
      this.folds.set(definition.name, { definition, state: definition.initial() });
    }
    this.deriver = new MessageDeriver(
      this.surfaceState,
      (seq) => this.history.get(seq)!,
      (event) => this.projectEvent(event),
    );
  }

  /**
   * Creates a new session whose `session/header` (seq 1) records id, cwd, title, model and parent.
   *
   * @throws {SessionExistsError} when the id already exists in the store.
   * @example
   * ```ts
   * const session = await Session.create({ store: createMemoryStore(), title: 'scratch' });
   * ```
   */
  static async create(options: SessionCreateOptions): Promise<Session> {
    assertSpecificationVersion('SessionStore', options.store);
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
    session.load([event]);
    return session;
  }

  /**
   * Opens a stored session. Unless `readOnly`, takes the store's writer lock and repairs a crash:
   * a torn last write is recorded, and (with `recover`, the default) every surface tool call without
   * a result gets one, followed by a `session/recovered` event.
   *
   * @throws {SessionNotFoundError} {SessionLockedError} {SessionCorruptError} {UnknownEventTypeError} {UnsupportedFormatError}
   * @example
   * ```ts
   * const session = await Session.open({ store, id: 'a1b2', readOnly: true });
   * ```
   */
  static async open(options: SessionOpenOptions): Promise<Session> {
    assertSpecificationVersion('SessionStore', options.store);
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
      session.load(events);
      if (events === writer.events) await session.adoptSnapshot();
      if (!readOnly) await session.repair(writer.repaired, options.recover ?? true);
      return session;
    } catch (error) {
      await writer.close();
      throw error;
    }
  }

  /**
   * A fully loaded session still takes the attachments (and seq) of a valid snapshot, so that
   * consumers restore their state from it; a snapshot that does not match the log is ignored.
   */
  private async adoptSnapshot(): Promise<void> {
    const stored = await this.store.readSnapshot(this.id).catch(() => undefined);
    const decoded = stored ? decodeSnapshot(stored, this.id) : undefined;
    if (!decoded || !('content' in decoded)) return;
    const content = decoded.content;
    const at = this.history.get(content.seq);
    if (!at || anchorOf(at) !== content.anchor) return;
    this.snapshotSeq = content.seq;
    this.opened = { seq: content.seq, attachments: content.attachments ?? {} };
  }

  /**
   * Opens with `history: 'lazy'`: the newest valid snapshot, then the events after it. A
   * snapshot that fails its digest, names another format or does not match the log's event at
   * its seq is ignored: the whole log is read once, the lazy state built from it, and (when
   * writable) a new snapshot written.
   */
  private static async openLazily(options: SessionOpenOptions): Promise<Session> {
    const { store, id } = options;
    const readOnly = options.readOnly ?? false;
    const stored = await store.readSnapshot(id);
    const decoded = stored ? decodeSnapshot(stored, id) : undefined;
    const content = decoded && 'content' in decoded ? decoded.content : undefined;
    const make = (writer: OpenedSession): Session =>
      new Session({
        id,
        store,
        writer,
        readOnly,
        eventTypes: options.eventTypes,
        projector: options.projector,
        projections: options.projections,
        snapshots: options.snapshots,
      });
    if (content) {
      const writer = await store.open(id, { readOnly, fromSeq: content.seq });
      const at = writer.events[0];
      let session: Session | undefined;
      if (at?.seq === content.seq && anchorOf(at) === content.anchor) {
        session = make(writer);
        try {
          await session.restoreFrom(content);
          session.load(writer.events.slice(1));
        } catch {
          // Digest-valid yet inconsistent (a writer bug, or a type now unknown): rebuild.
          session = undefined;
        }
      }
      if (session) {
        try {
          if (!readOnly) await session.repair(writer.repaired, options.recover ?? true);
          return session;
        } catch (error) {
          await writer.close();
          throw error;
        }
      }
      await writer.close();
    }
    // No usable snapshot: read everything once, keep what a lazy session holds, write one.
    const full = await Session.open({ ...options, history: 'full' });
    if (!readOnly && full.lastSeq > 1) {
      const rebuilt = full.snapshotContent();
      // A failed write only means the next open rebuilds again.
      await full.writer.writeSnapshot(encodeSnapshot(rebuilt)).then(
        () => {
          full.snapshotSeq = rebuilt.seq;
        },
        () => {},
      );
    }
    full.history.trim(full.surfaceState.seqs);
    return full;
  }

  /** Restores the state a snapshot holds; the tail then starts at `content.seq + 1`. */
  private async restoreFrom(content: SessionSnapshotContent): Promise<void> {
    for (const event of content.events) {
      if (!this.registry.lookup(event.type) && event.surfaceOp) {
        throw new UnknownEventTypeError({
          type: event.type,
          where: `session ${this.id} (seq ${event.seq})`,
        });
      }
    }
    this.history.restore(content.seq + 1, content.events);
    this.surfaceState.restore(content.surface, content.generation, (seq) => this.history.get(seq));
    this.lastTurn = content.lastTurn;
    this.lastStep = content.lastStep;
    for (const seq of content.ignorable) this.ignorable.add(seq);
    this.startedBefore = content.openStarted;
    this.snapshotSeq = content.seq;
    this.opened = { seq: content.seq, attachments: content.attachments ?? {} };
    const refold: Array<{ definition: SessionProjection; state: JsonValue }> = [];
    for (const fold of this.folds.values()) {
      const saved = content.projections[fold.definition.name];
      if (saved && saved.version === fold.definition.version) fold.state = saved.state;
      else refold.push(fold);
    }
    if (refold.length === 0) return;
    for (const fold of refold) fold.state = fold.definition.initial();
    for await (const event of this.store.readRange(this.id, { fromSeq: 1, toSeq: content.seq })) {
      for (const fold of refold) fold.state = fold.definition.apply(fold.state, event);
    }
  }

  /** The body of the `session/header` event. */
  get header(): SessionHeaderBody {
    return this.history.get(1)!.body as SessionHeaderBody;
  }

  /** The seq of the last event. */
  get lastSeq(): number {
    return this.history.lastSeq;
  }

  /** Bumps on every surface `replace`. */
  get replaceGeneration(): number {
    return this.surfaceState.generation;
  }

  /**
   * Validates and appends one event, assigning the next seq.
   *
   * @throws {InvalidEventError} {UnknownEventTypeError} {IllegalSurfaceOpError} {SessionClosedError}
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
    const entry = this.registry.lookup(type);
    if (!entry || type === 'session/header') {
      if (type === 'session/header') {
        throw new InvalidEventError({
          type,
          reason: 'the header is written once, by Session.create',
        });
      }
      throw new UnknownEventTypeError({ type });
    }
    if (!isPlainJson(body)) {
      const nonJson = findNonJson(body, 'body') ?? 'body nests deeper than 64 levels';
      throw new InvalidEventError({ type, reason: nonJson });
    }
    const invalid = entry.validate?.(body);
    if (invalid) throw new InvalidEventError({ type, reason: invalid });
    const checked = checkAppendOptions(type, options, {
      lastSeq: this.history.lastSeq,
      lastTurn: this.lastTurn,
      lastStep: this.lastStep,
    });
    if (checked.surfaceOp && !entry.surface) {
      throw new IllegalSurfaceOpError({
        type,
        reason: 'this event type does not take part in the surface',
      });
    }
    const event = buildEvent(this.history.lastSeq + 1, type, body, checked);
    if (checked.surfaceOp) {
      const illegal = this.surfaceState.check(event, checked.surfaceOp);
      if (illegal) throw new IllegalSurfaceOpError({ type, reason: illegal });
    }
    try {
      this.writer.append([event]);
    } catch (error) {
      this.state = 'failed';
      throw error;
    }
    this.commit(event);
    this.listeners.emit(event);
    return event;
  }

  /**
   * The event with this seq, if any. A lazily opened session holds only the header, the
   * surface and the events since its snapshot: read others with {@link Session.readEvents}.
   */
  get(seq: number): SessionEvent | undefined {
    return this.history.get(seq);
  }

  /**
   * Events with `from <= seq <= to` (defaults: the whole log), in order. A lazily opened
   * session returns only the events it holds (see {@link Session.get}).
   */
  events(range: { from?: number; to?: number } = {}): readonly SessionEvent[] {
    const from = Math.max(1, range.from ?? 1);
    const to = Math.min(this.history.lastSeq, range.to ?? this.history.lastSeq);
    return this.history.range(from, to);
  }

  /**
   * Streams the events of `range` in seq order, whether held in memory or not: events before
   * the held tail come from the store, the rest from memory.
   *
   * @throws {InvalidRangeError} for a malformed range.
   */
  async *readEvents(range: SessionRange): AsyncIterable<SessionEvent> {
    checkRange(range);
    const toSeq = Math.min(range.toSeq ?? this.history.lastSeq, this.history.lastSeq);
    const types = range.types ? new Set(range.types) : undefined;
    let left = range.limit ?? Number.POSITIVE_INFINITY;
    if (left <= 0) return;
    let next = range.fromSeq;
    const tailStart = this.history.tailStart;
    if (next < tailStart) {
      const stored = this.store.readRange(this.id, {
        ...range,
        toSeq: Math.min(toSeq, tailStart - 1),
      });
      for await (const event of stored) {
        yield event;
        if (--left <= 0) return;
      }
      next = tailStart;
    }
    for (let seq = next; seq <= toSeq; seq++) {
      const event = this.history.get(seq) as SessionEvent;
      if (types && !types.has(event.type)) continue;
      yield event;
      if (--left <= 0) return;
    }
  }

  /**
   * The state of a registered projection (see {@link SessionProjection}), folded over every
   * event so far. Treat it as read-only.
   *
   * @throws {InvalidEventError} for a name no projection was registered under.
   */
  projection<State extends JsonValue = JsonValue>(name: string): State {
    const fold = this.folds.get(name);
    if (!fold) {
      throw new InvalidEventError({
        type: 'session/header',
        reason: `no projection is named ${JSON.stringify(name)}; pass it in projections`,
      });
    }
    return fold.state as State;
  }

  /**
   * Registers state captured into every snapshot this session writes, under `name`; `capture`
   * must return plain JSON and must not throw. Registering a name again replaces its capture.
   */
  attachToSnapshots(name: string, capture: () => JsonValue): void {
    this.captures.set(name, capture);
  }

  /**
   * What `name` held in the snapshot this session was opened from (lazily, or fully when a valid
   * snapshot was found), with that snapshot's seq; undefined otherwise.
   */
  snapshotAttachment(name: string): { seq: number; value: JsonValue } | undefined {
    const value = this.opened?.attachments[name];
    return this.opened && value !== undefined ? { seq: this.opened.seq, value } : undefined;
  }

  /**
   * Writes a snapshot at the last seq now (the store keeps the newest one). Opening with
   * `history: 'lazy'` then reads it and the events after it. Automatic snapshots follow the
   * `snapshots` option.
   *
   * @throws {SessionClosedError} from a read-only or closed session.
   */
  async snapshot(): Promise<void> {
    if (this.state !== 'open' || this.readOnly) {
      throw new SessionClosedError({
        sessionId: this.id,
        reason: this.readOnly ? 'read-only' : this.state === 'failed' ? 'failed' : 'closed',
      });
    }
    await this.snapshotting;
    if (this.history.lastSeq === this.snapshotSeq) return;
    const content = this.snapshotContent();
    await this.writer.writeSnapshot(encodeSnapshot(content));
    this.snapshotSeq = content.seq;
  }

  /** The seqs currently on the surface, in order (a copy). */
  surface(): readonly number[] {
    return this.surfaceState.seqs.slice();
  }

  /**
   * The model history derived from the surface. Incremental: the cost is proportional to the
   * surface events added since the last call; a replace starts fresh arrays (copying the
   * untouched prefix). The returned arrays are shared and grow in place on later calls until the
   * next replace: read or copy them now.
   */
  deriveMessages(): DerivedMessages {
    return this.deriver.derive();
  }

  /**
   * The message(s) a surface event projects to: a registered type's own projection, otherwise
   * this session's projector. The projection `deriveMessages` uses; the event need not be on
   * the surface now (compaction and recall render replaced events with it).
   *
   * @throws {UnknownEventTypeError} for a type with no projection.
   */
  project(event: SessionEvent): readonly Message[] {
    return this.projectEvent(event);
  }

  /** True when `seq` is an event of a type this reader does not know, kept and skipped. */
  isIgnorable(seq: number): boolean {
    return this.ignorable.has(seq);
  }

  /** Calls `listener` for every event appended from now on; returns an unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    return this.listeners.add(listener);
  }

  /**
   * Registers a custom event type (with its projection when it is surface-bearing).
   *
   * @throws {InvalidEventError} for a built-in or conflicting type.
   */
  registerEventType(definition: EventTypeDefinition): void {
    this.registry.register(definition);
  }

  /** Marks a turn boundary: stores with a `per-turn` fsync policy make appended events durable here. */
  checkpoint(): void {
    if (this.state !== 'open') return;
    this.writer.checkpoint?.();
    if (this.snapshotDue()) this.snapshotInBackground();
  }

  /** Makes every appended event durable now, whatever the store's fsync policy. */
  async flush(): Promise<void> {
    if (this.state === 'open') await this.writer.flush();
  }

  /**
   * Makes a new session that shares this one's history up to `atSeq` (same seqs), with
   * `header.parent` recording where it came from. Tool calls left open at `atSeq` are answered
   * as on recovery unless `recover` is false.
   *
   * @throws {InvalidEventError} when `atSeq` is outside `1..lastSeq`.
   */
  async fork(atSeq: number, options: SessionForkOptions = {}): Promise<Session> {
    if (!Number.isInteger(atSeq) || atSeq < 1 || atSeq > this.lastSeq) {
      throw new InvalidEventError({
        type: 'session/header',
        reason: `fork point ${atSeq} is outside 1..${this.lastSeq}`,
      });
    }
    const { sessionId: _id, createdAt: _at, parent: _parent, ...rest } = this.header;
    const child = await Session.create({
      ...rest,
      store: options.store ?? this.store,
      id: options.id ?? randomUUID(),
      parent: { sessionId: this.id, atSeq },
      eventTypes: this.registry.definitions(),
      projector: this.projector,
    });
    try {
      let batch: SessionEvent[] = [];
      const copy = (): void => {
        child.writer.append(batch);
        child.load(batch);
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
    if (this.state === 'open' && this.snapshotDue()) this.snapshotInBackground();
    await this.snapshotting;
    this.state = 'closed';
    try {
      await this.writer.close();
    } finally {
      this.listeners.clear();
    }
  }

  /** Adds trusted events (from a store or a fork) with structural checks only: no schema validation. */
  private load(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (!this.registry.lookup(event.type)) {
        if (event.surfaceOp)
          throw new UnknownEventTypeError({
            type: event.type,
            where: `session ${this.id} (seq ${event.seq})`,
          });
        this.ignorable.add(event.seq);
      }
      if (event.surfaceOp && !this.surfaceState.apply(event, event.surfaceOp)) {
        throw new SessionCorruptError({
          file: `${this.store.kind}:${this.id}`,
          line: event.seq,
          reason: `seq ${event.seq} replaces a surface region that does not exist`,
        });
      }
      this.history.push(event);
      this.trackTurn(event);
      this.fold(event);
    }
  }

  private async repair(repaired: OpenedSession['repaired'], recover: boolean): Promise<void> {
    const planned = planRecovery({
      events: this.history.tailEvents,
      get: (seq) => this.history.get(seq),
      startedBefore: this.startedBefore,
      surface: this.surfaceState,
      repaired,
      recover,
      turn: this.lastTurn >= 0 ? this.lastTurn : undefined,
      step: this.lastStep >= 0 ? this.lastStep : undefined,
    });
    if (planned.length === 0) return;
    for (const item of planned) this.append(item.type, item.body, item.options);
    await this.writer.flush();
  }

  private commit(event: SessionEvent): void {
    this.history.push(event);
    if (event.surfaceOp) {
      this.surfaceState.apply(event, event.surfaceOp);
      if (event.surfaceOp.op === 'replace' && this.history.partial) {
        this.history.dropResident((seq) => this.surfaceState.position(seq) >= 0);
      }
    }
    this.trackTurn(event);
    this.fold(event);
  }

  private fold(event: SessionEvent): void {
    for (const fold of this.folds.values()) {
      fold.state = fold.definition.apply(fold.state, event);
    }
  }

  private snapshotDue(): boolean {
    return (
      this.snapshotAfter !== undefined &&
      !this.readOnly &&
      this.snapshotting === undefined &&
      this.history.lastSeq - this.snapshotSeq >= this.snapshotAfter
    );
  }

  /** Writes a snapshot without making the caller wait; a failure only costs a slower open. */
  private snapshotInBackground(): void {
    const content = this.snapshotContent();
    this.snapshotting = this.writer
      .writeSnapshot(encodeSnapshot(content))
      .then(
        () => {
          this.snapshotSeq = Math.max(this.snapshotSeq, content.seq);
        },
        () => {},
      )
      .finally(() => {
        this.snapshotting = undefined;
      });
  }

  /** What a snapshot at the last seq holds. */
  private snapshotContent(): SessionSnapshotContent {
    const seq = this.history.lastSeq;
    const events: SessionEvent[] = [this.history.get(1)!];
    const surface = this.surfaceState.seqs.slice();
    for (const surfaceSeq of [...surface].sort((a, b) => a - b)) {
      if (surfaceSeq !== 1) events.push(this.history.get(surfaceSeq)!);
    }
    const open = new Set(this.surfaceState.openCalls().map((call) => call.toolCallId));
    const openStarted = this.startedBefore.filter((id) => open.has(id));
    for (const event of this.history.tailEvents) {
      const id =
        event.type === 'tool/started'
          ? (event.body as { toolCallId?: string }).toolCallId
          : undefined;
      if (id !== undefined && open.has(id)) openStarted.push(id);
    }
    const projections: SessionSnapshotContent['projections'] = {};
    for (const [name, fold] of this.folds) {
      projections[name] = { version: fold.definition.version, state: fold.state };
    }
    const attachments: Record<string, JsonValue> = {};
    for (const [name, capture] of this.captures) attachments[name] = capture();
    return {
      kind: 'session-snapshot',
      version: SNAPSHOT_VERSION,
      formatVersion: (this.header.formatVersion as number | undefined) ?? 0,
      sessionId: this.id,
      seq,
      anchor: anchorOf(this.history.get(seq)!),
      events,
      surface,
      generation: this.surfaceState.generation,
      lastTurn: this.lastTurn,
      lastStep: this.lastStep,
      ignorable: [...this.ignorable],
      openStarted: [...new Set(openStarted)],
      projections,
      attachments,
    };
  }

  private trackTurn(event: SessionEvent): void {
    if (event.turn !== undefined && event.turn > this.lastTurn) {
      this.lastTurn = event.turn;
      this.lastStep = -1;
    }
    if (event.step !== undefined && event.step > this.lastStep) this.lastStep = event.step;
  }

  private projectEvent(event: SessionEvent): readonly Message[] {
    const custom = this.registry.lookup(event.type)?.project;
    return custom ? custom(event) : this.projector.project(event);
  }
}
