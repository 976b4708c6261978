// Over 400 lines because Session is the single writer of a log: append validation, the surface,
// derivation, projection and durability hooks share its private state (split parts: session-*.ts).
import { randomUUID } from 'node:crypto';
import type {
  AppendOptions,
  DerivedMessages,
  EventTypeDefinition,
  Message,
  OpenedSession,
  Projector,
  SessionEvent,
  SessionHeaderBody,
  SessionListener,
  SessionLog,
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
import { createDefaultProjector } from './projector.js';
import { MessageDeriver } from './session-derive.js';
import { currentFormatEvents, headerEvent } from './session-format.js';
import { planRecovery } from './session-recovery.js';
import { SurfaceState } from './session-surface.js';
import { buildEvent, checkAppendOptions } from './session-validate.js';
import type { SessionCreateOptions, SessionForkOptions, SessionOpenOptions } from './types.js';

interface SessionInit {
  id: string;
  store: SessionStore;
  writer: OpenedSession;
  readOnly: boolean;
  eventTypes: readonly EventTypeDefinition[] | undefined;
  projector: Projector | undefined;
}

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
  private readonly log: SessionEvent[] = [];
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
    for (const definition of init.eventTypes ?? []) this.registry.register(definition);
    this.deriver = new MessageDeriver(
      this.surfaceState,
      (seq) => this.log[seq - 1]!,
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
      });
      session.load(events);
      if (!readOnly) await session.repair(writer.repaired, options.recover ?? true);
      return session;
    } catch (error) {
      await writer.close();
      throw error;
    }
  }

  /** The body of the `session/header` event. */
  get header(): SessionHeaderBody {
    return this.log[0]!.body as SessionHeaderBody;
  }

  /** The seq of the last event. */
  get lastSeq(): number {
    return this.log.length;
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
      lastSeq: this.log.length,
      lastTurn: this.lastTurn,
      lastStep: this.lastStep,
    });
    if (checked.surfaceOp && !entry.surface) {
      throw new IllegalSurfaceOpError({
        type,
        reason: 'this event type does not take part in the surface',
      });
    }
    const event = buildEvent(this.log.length + 1, type, body, checked);
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

  /** The event with this seq, if any. */
  get(seq: number): SessionEvent | undefined {
    return this.log[seq - 1];
  }

  /** Events with `from <= seq <= to` (defaults: the whole log), in order. */
  events(range: { from?: number; to?: number } = {}): readonly SessionEvent[] {
    const from = Math.max(1, range.from ?? 1);
    const to = Math.min(this.log.length, range.to ?? this.log.length);
    return this.log.slice(from - 1, to);
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
    if (this.state === 'open') this.writer.checkpoint?.();
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
      const copied = this.log.slice(1, atSeq);
      for (let i = 0; i < copied.length; i += 1000) child.writer.append(copied.slice(i, i + 1000));
      child.load(copied);
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
      this.log.push(event);
      this.trackTurn(event);
    }
  }

  private async repair(repaired: OpenedSession['repaired'], recover: boolean): Promise<void> {
    const planned = planRecovery({
      events: this.log,
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
    this.log.push(event);
    if (event.surfaceOp) this.surfaceState.apply(event, event.surfaceOp);
    this.trackTurn(event);
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
