// The state a Session holds and the mechanics over it (loading trusted events, committing
// appended ones, folds, turn tracking, and the snapshot half: what a snapshot holds and how a
// session restores from one). Session (session.ts) owns the writer, the lock and the public API
// and reaches this through one private field; nothing here is exported from the package. It is
// over 400 lines because the snapshot half (content, restore, projection migration) shares the
// fold and history fields with the load half; splitting it would widen both with accessors.
import type {
  AppendOptions,
  EventTypeDefinition,
  JsonValue,
  Message,
  OpenedSession,
  Projector,
  SessionEvent,
  SessionHeaderBody,
  SessionRange,
  SessionStore,
  SurfaceOp,
} from '@spine/protocol';
import { findNonJson } from '@spine/protocol/core';
import {
  IllegalSurfaceOpError,
  InvalidEventError,
  SessionCorruptError,
  UnknownEventTypeError,
} from './errors.js';
import { EventTypeRegistry } from './event-types.js';
import { isPlainJson } from './internal/json-check.js';
import { checkRange } from './internal/range.js';
import { hooksOf, readSnapshotHead } from './internal/store-hooks.js';
import { createDefaultProjector } from './projector.js';
import { MessageDeriver } from './session-derive.js';
import { EventHistory } from './session-history.js';
import { type PlannedEvent, planRecovery } from './session-recovery.js';
import {
  anchorOf,
  decodeSnapshotState,
  type SessionSnapshotContent,
  SNAPSHOT_HEAD_LINES,
  SNAPSHOT_VERSION,
} from './session-snapshot.js';
import { SurfaceState } from './session-surface.js';
import { buildEvent, checkAppendOptions } from './session-validate.js';
import type { SessionProjection } from './types.js';

/** What a {@link SessionCore} is made from. */
export interface SessionCoreInit {
  id: string;
  store: SessionStore;
  eventTypes: readonly EventTypeDefinition[] | undefined;
  projector: Projector | undefined;
  projections: readonly SessionProjection[] | undefined;
}

/** A session's in-memory state: history, surface, registry, folds and snapshot bookkeeping. */
export class SessionCore {
  readonly history = new EventHistory();
  readonly folds = new Map<string, { definition: SessionProjection; state: JsonValue }>();
  /** The folds of projections without `types` (every event), and the others by event type. */
  private readonly foldsOfAll: Array<{ definition: SessionProjection; state: JsonValue }> = [];
  private readonly foldsByType = new Map<
    string,
    Array<{ definition: SessionProjection; state: JsonValue }>
  >();
  /** The seq of the newest snapshot this session wrote or opened from (0: none known). */
  snapshotSeq = 0;
  /** True when the snapshot opened from lacked a projection's state in its current version. */
  stale = false;
  /** The anchor of the snapshot restored from (its event is not held unless on the surface). */
  private restoredAnchor: { seq: number; anchor: string } | undefined;
  /** Open surface calls that reached tool/started before the tail held in memory. */
  startedBefore: readonly string[] = [];
  readonly captures = new Map<string, () => JsonValue>();
  /** The attachments of the snapshot this session was opened from, and its seq. */
  opened: { seq: number; attachments: Record<string, JsonValue> } | undefined;
  readonly surfaceState = new SurfaceState();
  readonly registry = new EventTypeRegistry();
  readonly deriver: MessageDeriver;
  readonly projector: Projector;
  readonly ignorable = new Set<number>();
  lastTurn = -1;
  lastStep = -1;

  constructor(private readonly init: SessionCoreInit) {
    this.projector = init.projector ?? createDefaultProjector();
    for (const definition of init.eventTypes ?? []) this.registry.register(definition);
    for (const definition of init.projections ?? []) {
      if (this.folds.has(definition.name)) {
        throw new InvalidEventError({
          type: 'session/header',
          reason: `two projections are named ${JSON.stringify(definition.name)}`,
        });
      }
      const fold = { definition, state: definition.initial() };
      this.folds.set(definition.name, fold);
      if (definition.types === undefined) this.foldsOfAll.push(fold);
      else {
        for (const type of projectionTypes(definition)) {
          const list = this.foldsByType.get(type);
          if (list) list.push(fold);
          else this.foldsByType.set(type, [fold]);
        }
      }
    }
    this.deriver = new MessageDeriver(
      this.surfaceState,
      (seq) => this.history.get(seq)!,
      (event) => this.projectEvent(event),
    );
  }

  /** The body of the `session/header` event. */
  get header(): SessionHeaderBody {
    return this.history.get(1)!.body as SessionHeaderBody;
  }

  /**
   * Validates one append and builds its event (seq `lastSeq + 1`); nothing is written or kept.
   *
   * @throws an {@link InvalidEventError} for a `session/header`, a body that is not plain JSON or
   *   fails its type's check, or malformed options.
   * @throws an {@link UnknownEventTypeError} for a type that is neither built in nor registered.
   * @throws an {@link IllegalSurfaceOpError} for a malformed surface op, one on a type that takes
   *   no part in the surface, or one the surface refuses (a missing region, a split tool pair).
   */
  prepare(type: string, body: unknown, options: AppendOptions): SessionEvent {
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
    return event;
  }

  /**
   * Streams the events of `range` in seq order, whether held in memory or not: events before
   * the held tail come from the store, the rest from memory.
   */
  async *readEvents(range: SessionRange): AsyncIterable<SessionEvent> {
    checkRange(range);
    const lastSeq = this.history.lastSeq;
    const toSeq = Math.min(range.toSeq ?? lastSeq, lastSeq);
    const types = range.types ? new Set(range.types) : undefined;
    let left = range.limit ?? Number.POSITIVE_INFINITY;
    if (left <= 0) return;
    let next = range.fromSeq;
    const tailStart = this.history.tailStart;
    if (next < tailStart) {
      const stored = this.init.store.readRange(this.init.id, {
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

  /** Adds trusted events (from a store or a fork) with structural checks only: no schema validation. */
  load(events: readonly SessionEvent[]): void {
    for (const event of events) {
      this.applyTrusted(event);
      this.history.push(event);
    }
  }

  /**
   * Applies one trusted event to everything but the history (surface, unknown types, turns,
   * projections); {@link SessionCore.load} and the streamed first open (session-open.ts) use it.
   *
   * @throws a {@link SessionCorruptError} when the event replaces a surface region that does not
   *   exist.
   * @throws an {@link UnknownEventTypeError} for a surface event of an unregistered type.
   */
  applyTrusted(event: SessionEvent): void {
    if (!this.registry.lookup(event.type)) {
      if (event.surfaceOp)
        throw new UnknownEventTypeError({
          type: event.type,
          where: `session ${this.init.id} (seq ${event.seq})`,
        });
      this.ignorable.add(event.seq);
    }
    if (event.surfaceOp && !this.surfaceState.apply(event, event.surfaceOp)) {
      throw new SessionCorruptError({
        file: `${this.init.store.kind}:${this.init.id}`,
        line: event.seq,
        reason: `seq ${event.seq} replaces a surface region that does not exist`,
      });
    }
    this.trackTurn(event);
    this.fold(event);
  }

  /** Keeps an event that `prepare` built and the writer accepted. */
  commit(event: SessionEvent): void {
    // Kept small (V8 optimises a small function early): the replace case is its own method.
    this.history.push(event);
    if (event.surfaceOp) this.applySurface(event, event.surfaceOp);
    this.trackTurn(event);
    this.fold(event);
  }

  /** Applies a kept event's surface op; a replace drops the resident events it took off. */
  private applySurface(event: SessionEvent, op: SurfaceOp): void {
    this.surfaceState.apply(event, op);
    if (op.op === 'replace' && this.history.partial) {
      this.history.dropResident((seq) => this.surfaceState.position(seq) >= 0);
    }
  }

  /** The message(s) a surface event projects to (a registered type's own projection first). */
  projectEvent(event: SessionEvent): readonly Message[] {
    const custom = this.registry.lookup(event.type)?.project;
    return custom ? custom(event) : this.projector.project(event);
  }

  /**
   * A fully loaded session still takes the attachments (and seq) of a valid snapshot, so that
   * consumers restore their state from it; a snapshot that does not match the log is ignored.
   */
  async adoptSnapshot(): Promise<void> {
    // Only the state part: the events part (as large as the surface) is neither read nor hashed.
    const { store, id } = this.init;
    const readHead = hooksOf(store)[readSnapshotHead];
    const stored = readHead
      ? await Promise.resolve()
          .then(() => readHead.call(store, id, SNAPSHOT_HEAD_LINES))
          .catch(() => undefined)
      : await store.readSnapshot(id).catch(() => undefined);
    const decoded = stored ? decodeSnapshotState(stored, id) : undefined;
    if (!decoded || !('state' in decoded)) return;
    const { state } = decoded;
    const at = this.history.get(state.seq);
    if (!at || anchorOf(at) !== state.anchor) return;
    this.snapshotSeq = state.seq;
    this.opened = { seq: state.seq, attachments: state.attachments ?? {} };
  }

  /** Restores the state a snapshot holds; the tail then starts at `content.seq + 1`. */
  async restoreFrom(content: SessionSnapshotContent): Promise<void> {
    for (const event of content.events) {
      if (!this.registry.lookup(event.type) && event.surfaceOp) {
        throw new UnknownEventTypeError({
          type: event.type,
          where: `session ${this.init.id} (seq ${event.seq})`,
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
    this.restoredAnchor = { seq: content.seq, anchor: content.anchor };
    const refold: Array<{ definition: SessionProjection; state: JsonValue }> = [];
    for (const fold of this.folds.values()) {
      const saved = content.projections[fold.definition.name];
      const state = saved ? migratedState(fold.definition, saved) : undefined;
      if (state !== undefined) fold.state = state;
      else refold.push(fold);
      if (saved && saved.version !== fold.definition.version) this.stale = true;
    }
    if (refold.length === 0) return;
    // Folded again from the log (a projection the snapshot lacks or cannot migrate): the
    // session writes a snapshot soon, so that this pass over the log happens once.
    this.stale = true;
    for (const fold of refold) fold.state = fold.definition.initial();
    const stored = this.init.store.readRange(this.init.id, { fromSeq: 1, toSeq: content.seq });
    for await (const event of stored) {
      for (const fold of refold) {
        if (fold.definition.types?.includes(event.type) !== false)
          fold.state = fold.definition.apply(fold.state, event);
      }
    }
  }

  /** What a snapshot at the last seq holds. */
  snapshotContent(): SessionSnapshotContent {
    const seq = this.history.lastSeq;
    const events: SessionEvent[] = [this.history.get(1)!];
    const surface = this.surfaceState.seqs.slice();
    for (const surfaceSeq of [...surface].sort((a, b) => a - b)) {
      if (surfaceSeq !== 1) events.push(this.history.get(surfaceSeq)!);
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
      sessionId: this.init.id,
      seq,
      anchor: this.anchorAt(seq),
      events,
      surface,
      generation: this.surfaceState.generation,
      lastTurn: this.lastTurn,
      lastStep: this.lastStep,
      ignorable: [...this.ignorable],
      openStarted: this.openStarted(),
      projections,
      attachments,
    };
  }

  /** The anchor of the event at `seq`: held, or the restored snapshot's when it is that seq. */
  private anchorAt(seq: number): string {
    const event = this.history.get(seq);
    if (event) return anchorOf(event);
    if (this.restoredAnchor?.seq === seq) return this.restoredAnchor.anchor;
    throw new Error(`no event held at seq ${seq} to anchor a snapshot`);
  }

  /** The events that repair a crash (answers for open surface calls, a recovered marker). */
  recoveryPlan(repaired: OpenedSession['repaired'], recover: boolean): PlannedEvent[] {
    return planRecovery({
      events: this.history.tailEvents,
      get: (seq) => this.history.get(seq),
      startedBefore: this.startedBefore,
      surface: this.surfaceState,
      repaired,
      recover,
      turn: this.lastTurn >= 0 ? this.lastTurn : undefined,
      step: this.lastStep >= 0 ? this.lastStep : undefined,
    });
  }

  /**
   * Drops the held tail (a lazy history from here on): keeps the header and the surface events
   * resident and remembers which open surface calls reached `tool/started` in the dropped part.
   */
  trimToSurface(): void {
    this.startedBefore = this.openStarted();
    this.history.trim(this.surfaceState.seqs);
  }

  /** Call ids of open surface tool calls that reached `tool/started`. */
  private openStarted(): string[] {
    const open = new Set(this.surfaceState.openCalls().map((call) => call.toolCallId));
    const openStarted = this.startedBefore.filter((id) => open.has(id));
    for (const event of this.history.tailEvents) {
      const id =
        event.type === 'tool/started'
          ? (event.body as { toolCallId?: string }).toolCallId
          : undefined;
      if (id !== undefined && open.has(id)) openStarted.push(id);
    }
    return [...new Set(openStarted)];
  }

  private fold(event: SessionEvent): void {
    // Per append: indexed loops and no map lookup without typed projections (no iterator
    // objects on the append path, which runs unoptimised in short sessions).
    const all = this.foldsOfAll;
    for (let i = 0; i < all.length; i++) {
      const fold = all[i] as (typeof all)[number];
      fold.state = fold.definition.apply(fold.state, event);
    }
    if (this.foldsByType.size === 0) return;
    const typed = this.foldsByType.get(event.type);
    if (!typed) return;
    for (let i = 0; i < typed.length; i++) {
      const fold = typed[i] as (typeof typed)[number];
      fold.state = fold.definition.apply(fold.state, event);
    }
  }

  private trackTurn(event: SessionEvent): void {
    if (event.turn !== undefined && event.turn > this.lastTurn) {
      this.lastTurn = event.turn;
      this.lastStep = -1;
    }
    if (event.step !== undefined && event.step > this.lastStep) this.lastStep = event.step;
  }
}

/**
 * A snapshot's saved state of `definition` in its current version: as saved, migrated by the
 * projection's `migrate` from an older version, or undefined (fold again from the log).
 */
function migratedState(
  definition: SessionProjection,
  saved: { version: number; state: JsonValue },
): JsonValue | undefined {
  if (saved.version === definition.version) return saved.state;
  if (!definition.migrate || saved.version > definition.version) return undefined;
  try {
    return definition.migrate(saved.state, saved.version);
  } catch {
    return undefined; // an unmigratable state is folded again from the log
  }
}

/** The distinct event types a projection declared (`types`), checked. */
function projectionTypes(definition: SessionProjection): Set<string> {
  const types = definition.types;
  if (!Array.isArray(types) || !types.every((type) => typeof type === 'string')) {
    throw new InvalidEventError({
      type: 'session/header',
      reason: `projection ${JSON.stringify(definition.name)}: types must be an array of event type names`,
    });
  }
  return new Set(types);
}
