// When and how a Session writes its snapshots: on demand, and automatically (in the background)
// once enough events were appended since the last one.
import type { OpenedSession } from '@spine/protocol';
import type { SessionCore } from './session-core.js';
import { encodeSnapshot } from './session-snapshot.js';

/** Writes a session's snapshots through its writer; at most one background write at a time. */
export class SnapshotScheduler {
  private running: Promise<void> | undefined;

  /** `after`: events since the last snapshot before one is due (undefined: never automatic). */
  constructor(
    private readonly core: SessionCore,
    private readonly writer: OpenedSession,
    private readonly after: number | undefined,
  ) {}

  /** True when an automatic snapshot is due and none is being written. */
  due(): boolean {
    return (
      this.after !== undefined &&
      this.running === undefined &&
      this.core.history.lastSeq - this.core.snapshotSeq >= this.after
    );
  }

  /**
   * Writes a snapshot at the next turn of the event loop (at the last seq then), after the
   * caller has moved on; `settled()`, and so `close()`, waits for it. A failure, or a process
   * killed first, only costs a slower next open.
   */
  soon(): void {
    const turn = new Promise<void>((resolve) => setImmediate(resolve));
    this.running = turn
      .then(() => {
        const content = this.core.snapshotContent();
        return this.writer.writeSnapshot(encodeSnapshot(content)).then(() => {
          this.core.snapshotSeq = Math.max(this.core.snapshotSeq, content.seq);
        });
      })
      .catch(() => {})
      .finally(() => {
        this.running = undefined;
      });
  }

  /**
   * Writes a snapshot without making the caller wait; a failure only costs a slower open. That
   * includes a failure to build it (an attachment's capture that throws): the caller is at a turn
   * boundary or closing, and neither may fail because a snapshot could not be taken.
   */
  inBackground(): void {
    let content: ReturnType<SessionCore['snapshotContent']>;
    let encoded: ReturnType<typeof encodeSnapshot>;
    try {
      content = this.core.snapshotContent();
      encoded = encodeSnapshot(content);
    } catch {
      return;
    }
    this.running = this.writer
      .writeSnapshot(encoded)
      .then(
        () => {
          this.core.snapshotSeq = Math.max(this.core.snapshotSeq, content.seq);
        },
        () => {},
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Resolves when no background write is running. */
  async settled(): Promise<void> {
    await this.running;
  }

  /** Writes a snapshot at the last seq now, after any background write (none when current). */
  async now(): Promise<void> {
    await this.running;
    if (this.core.history.lastSeq === this.core.snapshotSeq) return;
    const content = this.core.snapshotContent();
    await this.writer.writeSnapshot(encodeSnapshot(content));
    this.core.snapshotSeq = content.seq;
  }
}
