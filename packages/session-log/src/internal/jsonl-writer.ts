import { closeSync, fdatasyncSync, writeSync } from 'node:fs';
import type { OpenedSession, SessionEvent } from '@spine/protocol';
import { SessionClosedError } from '../errors.js';
import type { FsyncPolicy } from '../types.js';

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
  private pending: string[] = [];
  private pendingLength = 0;
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
    let text = events.length === 1 ? `${JSON.stringify(events[0])}\n` : '';
    if (events.length > 1) for (const event of events) text += `${JSON.stringify(event)}\n`;
    if (this.init.fsync === 'always') {
      this.writeText(text);
      fdatasyncSync(this.init.fd);
      return;
    }
    this.pending.push(text);
    this.pendingLength += text.length;
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

  private writePending(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    live.delete(this);
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    this.writeText(text);
  }

  private writeText(text: string): void {
    try {
      // Writing the string directly spares a Buffer per group; a short write (rare on regular
      // files) falls back to writing the remaining bytes.
      const written = writeSync(this.init.fd, text);
      const buffer =
        written < text.length || written < Buffer.byteLength(text)
          ? Buffer.from(text, 'utf8')
          : undefined;
      let offset = written;
      while (buffer && offset < buffer.length) offset += writeSync(this.init.fd, buffer, offset);
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }
}
