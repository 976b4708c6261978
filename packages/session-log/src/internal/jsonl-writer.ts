import { closeSync, fdatasyncSync, writeSync } from 'node:fs';
import type { OpenedSession, SessionEvent } from '@spine/protocol';
import { SessionClosedError } from '../errors.js';
import type { FsyncPolicy } from '../types.js';
import { encodeJsonLine, jsonLineArena } from './json-line.js';

/**
 * The writer whose pending lines sit at the start of the shared encoder arena. Lines are encoded
 * straight into the arena and written from it, never copied; when another writer appends, the
 * owner's pending lines are written out first (an early write, which no fsync policy forbids).
 */
let arenaOwner: JsonlWriter | undefined;

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
  fd: number;
  events: SessionEvent[];
  repaired: OpenedSession['repaired'];
  fsync: FsyncPolicy;
  readOnly: boolean;
  flushBytes: number;
  flushIntervalMs: number;
  release: () => void;
}

/**
 * The writer half of an opened JSONL session. With fsync `always` every append is written and
 * synced before it returns; otherwise lines are buffered and written in groups (on a size
 * threshold, a short timer, a checkpoint, flush or close), which is what makes appends cheap.
 */
export class JsonlWriter implements OpenedSession {
  readonly events: readonly SessionEvent[];
  readonly repaired: OpenedSession['repaired'];
  /** Encoded lines not yet written: `jsonLineArena()[0..pendingLength)`, only while the arena owner. */
  private pendingLength = 0;
  /** Counts write calls, so a failed batch knows whether it can be taken back. */
  private writes = 0;
  private timer: NodeJS.Timeout | undefined;
  private failure: unknown;
  private closed = false;

  constructor(private readonly init: JsonlWriterInit) {
    this.events = init.events;
    this.repaired = init.repaired;
  }

  append(events: readonly SessionEvent[]): void {
    if (this.closed || this.init.readOnly) {
      throw new SessionClosedError({
        sessionId: this.init.sessionId,
        reason: this.init.readOnly ? 'read-only' : 'closed',
      });
    }
    if (this.failure) throw this.failure;
    if (arenaOwner !== this) this.takeArena();
    const mark = this.pendingLength;
    const writes = this.writes;
    try {
      for (const event of events) this.encode(event);
    } catch (error) {
      // An event that cannot be serialised adds nothing, unless part of the batch is already out.
      if (this.writes === writes) this.pendingLength = mark;
      throw error;
    }
    if (this.init.fsync === 'always') {
      this.writePending();
      fdatasyncSync(this.init.fd);
      return;
    }
    if (this.pendingLength >= this.init.flushBytes) {
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

  checkpoint(): void {
    if (this.closed || this.init.readOnly) return;
    this.writePending();
    if (this.init.fsync !== 'never') fdatasyncSync(this.init.fd);
  }

  async flush(): Promise<void> {
    if (this.closed || this.init.readOnly) return;
    if (this.failure) throw this.failure;
    this.writePending();
    fdatasyncSync(this.init.fd);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (!this.init.readOnly && !this.failure) {
        this.writePending();
        if (this.init.fsync !== 'never') fdatasyncSync(this.init.fd);
      }
    } finally {
      live.delete(this);
      if (arenaOwner === this) arenaOwner = undefined;
      this.pendingLength = 0;
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

  /** Becomes the arena owner, writing out the previous owner's pending lines. */
  private takeArena(): void {
    const previous = arenaOwner;
    if (previous && previous.pendingLength > 0) {
      try {
        previous.writePending();
      } catch {
        // Recorded as the previous owner's failure, which its next call reports.
      }
    }
    arenaOwner = this;
    this.pendingLength = 0;
  }

  /**
   * Encodes one event's line after the pending ones, writing those first when the line does not
   * fit; a line larger than the whole arena is written on its own. Nothing is added when encoding
   * throws.
   */
  private encode(event: SessionEvent): void {
    let end = encodeJsonLine(event, this.pendingLength);
    if (end < 0 && this.pendingLength > 0) {
      this.writePending();
      end = encodeJsonLine(event, 0);
    }
    if (end < 0) {
      this.writeText(`${JSON.stringify(event)}\n`);
      return;
    }
    this.pendingLength = end;
  }

  private writePending(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    live.delete(this);
    if (this.pendingLength === 0) return;
    const length = this.pendingLength;
    this.pendingLength = 0;
    this.writeBytes(jsonLineArena(), length);
  }

  private writeText(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.writeBytes(bytes, bytes.length);
  }

  /** Writes `bytes[0..length)`, continuing after a short write (rare on regular files). */
  private writeBytes(bytes: Buffer, length: number): void {
    try {
      this.writes++;
      let offset = 0;
      while (offset < length) offset += writeSync(this.init.fd, bytes, offset, length - offset);
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }
}
