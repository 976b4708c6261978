import type { OpenedSession, SessionEvent, StoreBlobs, StoredSnapshot } from '@spine/protocol';
import { SessionClosedError } from '../errors.js';
import type { FsyncPolicy } from '../types.js';
import { CHAIN_EXTRA_BYTES, CHAIN_HEX_LENGTH, sealLineAfterGap, sealText } from './chain.js';
import { closeSync, fdatasyncSync, fstatSync, writeSync } from './fs.js';
import { storeFailure } from './fs-errors.js';
import { encodeJsonLine, jsonLineArena } from './json-line.js';
import { createJsonlBlobs } from './jsonl-blobs.js';
import { writeSnapshotFile } from './jsonl-snapshot.js';

/**
 * At most this many appended events wait behind the line `chainHead()` names (a request header
 * records it; `verifyJsonlLog` keeps the values of the lines it has just read to check them).
 */
export const MAX_HEAD_LAG = 1024;

/** Writers with unwritten events, written synchronously if the process exits without closing them. */
const live = new Set<JsonlWriter>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const writer of live) writer.writePendingQuietly();
  });
}

/** Construction options of {@link JsonlWriter}. */
export interface JsonlWriterInit {
  sessionId: string;
  /** The log file (its snapshot file sits beside it). */
  path: string;
  fd: number;
  events: SessionEvent[];
  /** The seq of the last committed event when opened. */
  lastSeq: number;
  /** Seal each line with the tamper-evident chain. */
  chain: boolean;
  /** The chain value of the last line ('' when it carries none). */
  chainHead: string;
  repaired: OpenedSession['repaired'];
  fsync: FsyncPolicy;
  readOnly: boolean;
  flushBytes: number;
  flushIntervalMs: number;
  /** Event types whose append writes the pending lines at once (the write-ahead of a side effect). */
  durableTypes: ReadonlySet<string>;
  release: () => void;
}

/**
 * The writer half of an opened JSONL session. With fsync `always` (or `flushBytes` 0) every
 * append is encoded, written (and synced) before it returns. Otherwise appended events are kept
 * and encoded when they are written, in groups (on a size threshold, a short timer, a
 * checkpoint, flush or close, or at once for a `durableTypes` event such as `tool/started`, whose
 * tool runs right after it): an append then costs a push, and the encoding of a step's events
 * runs once, after the step, instead of inside each append. Events are immutable once appended
 * (the session hands them out as they are), so encoding them later writes the same bytes.
 */
export class JsonlWriter implements OpenedSession {
  readonly events: readonly SessionEvent[];
  readonly repaired: OpenedSession['repaired'];
  readonly lastSeq: number;
  /** The blob folder beside the log file. */
  readonly blobs: StoreBlobs;
  /** The seq of the last event appended (written or pending). */
  private appendedSeq: number;
  /** The chain value of the last line written, and that line's seq. */
  private head: string;
  private headSeq: number;
  /** Appended events not yet encoded nor written. */
  private pending: SessionEvent[] = [];
  /** A cheap lower bound of the pending events' line bytes, checked against `flushBytes`. */
  private pendingSize = 0;
  private timer: NodeJS.Timeout | undefined;
  private failure: unknown;
  private closed = false;
  private readonly immediate: boolean;

  constructor(private readonly init: JsonlWriterInit) {
    this.events = init.events;
    this.repaired = init.repaired;
    this.lastSeq = init.lastSeq;
    this.appendedSeq = init.lastSeq;
    this.head = init.chainHead;
    this.headSeq = init.lastSeq;
    this.immediate = init.fsync === 'always' || init.flushBytes <= 0;
    this.blobs = createJsonlBlobs({
      sessionId: init.sessionId,
      sessionPath: init.path,
      fsync: init.fsync,
      writable: () => !this.closed && !this.init.readOnly && this.failure === undefined,
    });
  }

  append(events: readonly SessionEvent[]): void {
    if (this.closed || this.init.readOnly) {
      throw new SessionClosedError({
        sessionId: this.init.sessionId,
        reason: this.init.readOnly ? 'read-only' : 'closed',
      });
    }
    if (this.failure) throw this.failure;
    const pending = this.pending;
    const durableTypes = this.init.durableTypes;
    let durable = false;
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as SessionEvent;
      pending.push(event);
      this.pendingSize += sizeHint(event.body);
      if (durableTypes.has(event.type)) durable = true;
    }
    const last = events[events.length - 1];
    if (last) this.appendedSeq = last.seq;
    if (this.immediate) {
      this.writePending();
      if (this.init.fsync === 'always') this.sync();
      return;
    }
    if (durable || this.pendingSize >= this.init.flushBytes) {
      this.writePending();
    } else if (!this.timer) {
      live.add(this);
      installExitHook();
      this.timer = setTimeout(() => {
        this.timer = undefined;
        try {
          this.writePending();
        } catch (error) {
          this.failure = error;
        }
      }, this.init.flushIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * The chain value of the last line written and its seq. Appended events still waiting for
   * their group write are not forced out (that would put their encoding on the caller's path),
   * unless more than {@link MAX_HEAD_LAG} wait, so the line named is never far back.
   */
  chainHead(): { seq: number; h: string } | undefined {
    if (!this.init.chain) return undefined;
    if (this.pending.length > MAX_HEAD_LAG && !this.closed && !this.failure) this.writePending();
    return this.head === '' ? undefined : { seq: this.headSeq, h: this.head };
  }

  checkpoint(): void {
    if (this.closed || this.init.readOnly) return;
    this.writePending();
    if (this.init.fsync !== 'never') this.sync();
  }

  async flush(): Promise<void> {
    if (this.closed || this.init.readOnly) return;
    if (this.failure) throw this.failure;
    this.writePending();
    this.sync();
  }

  async writeSnapshot(snapshot: StoredSnapshot): Promise<void> {
    if (this.closed || this.init.readOnly) {
      throw new SessionClosedError({
        sessionId: this.init.sessionId,
        reason: this.init.readOnly ? 'read-only' : 'closed',
      });
    }
    if (this.failure) throw this.failure;
    this.writePending();
    const sync = this.init.fsync !== 'never';
    // The events a snapshot describes reach the disk before the snapshot that names them.
    if (sync) this.sync();
    const atEnd = snapshot.seq === this.appendedSeq;
    try {
      const offset = atEnd ? fstatSync(this.init.fd).size : -1;
      const chain = atEnd && this.head ? this.head : undefined;
      writeSnapshotFile(
        this.init.path,
        { seq: snapshot.seq, data: snapshot.data, offset, chain },
        sync,
      );
    } catch (error) {
      throw storeFailure(error, `write a snapshot of session ${this.init.sessionId}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (!this.init.readOnly && !this.failure) {
        this.writePending();
        if (this.init.fsync !== 'never') this.sync();
      }
    } finally {
      live.delete(this);
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.pending = [];
      closeSync(this.init.fd);
      this.init.release();
    }
  }

  /** Writes buffered lines, swallowing errors (for the exit hook only). */
  writePendingQuietly(): void {
    try {
      this.writePending();
    } catch {
      // The process is exiting; nothing can report this.
    }
  }

  /**
   * Encodes the pending events into the shared arena and writes them, a group whenever the
   * arena is full; a line larger than the whole arena is written on its own. The arena is only
   * used within this call, so sessions sharing it never see each other's lines.
   */
  private writePending(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    live.delete(this);
    const events = this.pending;
    if (events.length === 0) return;
    this.pending = [];
    this.pendingSize = 0;
    let length = 0;
    const chain = this.init.chain;
    // With the chain, each line is encoded after a gap that takes the previous chain value (so
    // one digest covers both without a copy), and the room after it takes the line's own value.
    const gap = chain ? CHAIN_HEX_LENGTH : 0;
    const extra = chain ? CHAIN_EXTRA_BYTES : 0;
    try {
      const arena = jsonLineArena();
      for (const event of events) {
        let end = encodeJsonLine(event, length + gap);
        if (end >= 0 && end + extra > arena.length) end = -1;
        if (end < 0 && length > 0) {
          this.writeBytes(arena, length);
          length = 0;
          end = encodeJsonLine(event, gap);
          if (end >= 0 && end + extra > arena.length) end = -1;
        }
        if (end < 0) {
          const json = JSON.stringify(event);
          if (chain) {
            const sealed = sealText(json, this.head);
            this.writeText(sealed.line);
            this.head = sealed.head;
            this.headSeq = event.seq;
          } else {
            this.writeText(`${json}\n`);
          }
        } else if (chain) {
          const sealed = sealLineAfterGap(arena, length, end, this.head);
          length = sealed.end;
          this.head = sealed.head;
          this.headSeq = event.seq;
        } else {
          length = end;
        }
      }
      if (length > 0) this.writeBytes(arena, length);
    } catch (error) {
      this.failure ??= error;
      throw error;
    }
  }

  private writeText(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.writeBytes(bytes, bytes.length);
  }

  /**
   * Writes `bytes[0..length)`, continuing after a short write (rare on regular files). A failed
   * write fails the writer: the session must be opened again (its torn tail is then cut).
   */
  private writeBytes(bytes: Buffer, length: number): void {
    try {
      let offset = 0;
      while (offset < length) offset += writeSync(this.init.fd, bytes, offset, length - offset);
    } catch (error) {
      this.failure = storeFailure(
        error,
        `append to session ${this.init.sessionId}`,
        this.init.path,
      );
      throw this.failure;
    }
  }

  /** Syncs the log file to the disk. */
  private sync(): void {
    try {
      fdatasyncSync(this.init.fd);
    } catch (error) {
      throw storeFailure(error, `sync session ${this.init.sessionId} to disk`, this.init.path);
    }
  }
}

/**
 * A cheap lower bound of a body's line size: the lengths of its strings down to three levels
 * (message text sits at most that deep), plus a little per value. It only decides when a group
 * is written early; the timer bounds how long anything waits.
 */
function sizeHint(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object' || depth > 2) return 8;
  let size = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) size += sizeHint(value[i], depth + 1) + 1;
    return size;
  }
  for (const key in value as Record<string, unknown>) {
    size += key.length + 4 + sizeHint((value as Record<string, unknown>)[key], depth + 1);
  }
  return size;
}
