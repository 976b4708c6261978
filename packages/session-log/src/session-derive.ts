import type { DerivedMessages, Message, SessionEvent } from '@spine/protocol';
import type { SurfaceState } from './session-surface.js';

/**
 * The messages layer: projects surface events into protocol messages incrementally. Work per
 * call is proportional to the surface events added since the last call; a surface generation
 * change (a replace) starts a fresh pair of arrays, so earlier results keep their content.
 */
export class MessageDeriver {
  private messages: Message[] = [];
  private seqs: number[] = [];
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
      this.messages = [];
      this.seqs = [];
      this.projected = 0;
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
    }
    this.projected = total;
    this.last = { messages, seqs, generation: this.generation };
    return this.last;
  }

  /** Forgets everything derived so far (used when projections change). */
  reset(): void {
    this.generation = -1;
  }
}
