import type { DerivedMessages, Message, SessionEvent } from '@spine/protocol';
import { markAppendOnly } from '@spine/protocol/core';
import type { SurfaceState } from './session-surface.js';

/**
 * The messages layer: projects surface events into protocol messages incrementally. Work per
 * call is proportional to the surface events added since the last call. A surface generation
 * change (a replace) starts fresh arrays, so earlier results keep their content; the messages of
 * the surface prefix no replace touched are copied over rather than projected again.
 */
export class MessageDeriver {
  /** Marked append-only: encoders may trust that items they saw are still in place. */
  private messages: Message[] = markAppendOnly<Message>([]);
  private seqs: number[] = [];
  /** `ends[i]`: the number of messages once surface entry i is projected. */
  private ends: number[] = [];
  private generation = -1;
  private projected = 0;
  private last: DerivedMessages | undefined;

  constructor(
    private readonly surface: SurfaceState,
    private readonly lookup: (seq: number) => SessionEvent,
    private readonly project: (event: SessionEvent) => readonly Message[],
  ) {}

  /** Brings the derived messages up to date with the surface and returns them. */
  derive(): DerivedMessages {
    const surface = this.surface;
    if (surface.generation !== this.generation) {
      const keep =
        this.generation < 0
          ? 0
          : Math.min(this.projected, surface.unchangedPrefix(this.generation));
      const kept = keep === 0 ? 0 : this.ends[keep - 1]!;
      this.messages = markAppendOnly(this.messages.slice(0, kept));
      this.seqs = this.seqs.slice(0, kept);
      this.ends = this.ends.slice(0, keep);
      this.projected = keep;
      this.generation = surface.generation;
      this.last = undefined;
    }
    const total = surface.seqs.length;
    if (this.projected === total && this.last) return this.last;
    const messages = this.messages;
    const seqs = this.seqs;
    for (let i = this.projected; i < total; i++) {
      const seq = surface.seqs[i]!;
      const projected = this.project(this.lookup(seq));
      for (const message of projected) {
        messages.push(message);
        seqs.push(seq);
      }
      this.ends.push(messages.length);
    }
    this.projected = total;
    this.last = { messages, seqs, generation: this.generation };
    return this.last;
  }
}
