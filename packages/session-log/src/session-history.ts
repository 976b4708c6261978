import type { SessionEvent } from '@spine/protocol';

/**
 * The events a session holds in memory. Fully loaded, that is every event (`base` 1). A lazy
 * session holds the tail since its snapshot (`base..lastSeq`) plus a few resident events from
 * before it: the header and the events on the surface.
 */
export class EventHistory {
  private tail: SessionEvent[] = [];
  private base = 1;
  private readonly resident = new Map<number, SessionEvent>();

  /** The seq of the last event. */
  get lastSeq(): number {
    return this.base - 1 + this.tail.length;
  }

  /** The first seq of the contiguous tail held in memory (1 when every event is held). */
  get tailStart(): number {
    return this.base;
  }

  /** The contiguous tail held in memory, in seq order (shared: do not mutate). */
  get tailEvents(): readonly SessionEvent[] {
    return this.tail;
  }

  /** The event with this seq when it is held. */
  get(seq: number): SessionEvent | undefined {
    return seq >= this.base ? this.tail[seq - this.base] : this.resident.get(seq);
  }

  /** Adds the next event (seq `lastSeq + 1`). */
  push(event: SessionEvent): void {
    this.tail.push(event);
  }

  /** Held events with `from <= seq <= to`, in seq order. */
  range(from: number, to: number): SessionEvent[] {
    const out: SessionEvent[] = [];
    if (from < this.base && this.resident.size > 0) {
      const before = [...this.resident.keys()]
        .filter((seq) => seq >= from && seq <= to)
        .sort((a, b) => a - b);
      for (const seq of before) out.push(this.resident.get(seq) as SessionEvent);
    }
    const start = Math.max(from, this.base) - this.base;
    const end = Math.min(to, this.lastSeq) - this.base + 1;
    for (let i = start; i < end; i++) out.push(this.tail[i] as SessionEvent);
    return out;
  }

  /** Starts a lazy history at a snapshot: `resident` events before `base`, an empty tail. */
  restore(base: number, resident: readonly SessionEvent[]): void {
    this.base = base;
    this.tail = [];
    this.resident.clear();
    for (const event of resident) this.resident.set(event.seq, event);
  }

  /** Moves the base past the last event, keeping the header and the events of `keep` resident. */
  trim(keep: Iterable<number>): void {
    const kept: SessionEvent[] = [];
    const header = this.get(1);
    if (header) kept.push(header);
    for (const seq of keep) {
      const event = seq === 1 ? undefined : this.get(seq);
      if (event) kept.push(event);
    }
    this.restore(this.lastSeq + 1, kept);
  }

  /** Drops resident events (never the header) whose seq `keep` rejects. */
  dropResident(keep: (seq: number) => boolean): void {
    for (const seq of [...this.resident.keys()]) {
      if (seq !== 1 && !keep(seq)) this.resident.delete(seq);
    }
  }

  /** True when events before the tail are missing from memory (a lazy history). */
  get partial(): boolean {
    return this.base > 1;
  }
}
