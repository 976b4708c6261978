import type {
  AssistantMessageBody,
  SessionEvent,
  SurfaceOp,
  ToolResultBody,
} from '@spine/protocol';

/** The tool call ids an event proposes (assistant messages only). */
function callIdsOf(event: SessionEvent): string[] | undefined {
  if (event.type !== 'assistant/message') return undefined;
  const content = (event.body as AssistantMessageBody | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  let ids: string[] | undefined;
  for (const part of content) {
    if (part && part.type === 'tool-call') {
      ids ??= [];
      ids.push(part.id);
    }
  }
  return ids;
}

/** The tool call id an event answers (tool results only). */
function answeredCallOf(event: SessionEvent): string | undefined {
  if (event.type !== 'tool/result') return undefined;
  const id = (event.body as ToolResultBody | undefined)?.toolCallId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The surface layer: the ordered seqs that take part in model history, plus the pairing of
 * tool calls and results on it. `check` says why an op would be illegal; `apply` performs it.
 */
export class SurfaceState {
  /** Surface seqs in order. Replaced wholesale never; mutated in place. */
  readonly seqs: number[] = [];
  /** Bumps on every replace. */
  generation = 0;
  /** `replacedAt[g]` is the surface position where the replace from generation g to g + 1 began. */
  private readonly replacedAt: number[] = [];
  /** seq → position in `seqs`; built on the first replace, since appends never need it. */
  private positions: Map<number, number> | undefined;
  /** Tool call id → seq of the surface assistant message proposing it. */
  private readonly callOwner = new Map<string, number>();
  /** Surface assistant seq → its tool call ids. */
  private readonly callsOf = new Map<number, string[]>();
  /** Tool call id → seq of its surface result. */
  private readonly resultOf = new Map<string, number>();
  /** Surface result seq → the call id it answers. */
  private readonly answeredBy = new Map<number, string>();

  /**
   * Rebuilds the state a snapshot describes: the surface seqs (in surface order) and the
   * generation, with the tool-call pairing re-derived from the surface events.
   */
  restore(
    seqs: readonly number[],
    generation: number,
    get: (seq: number) => SessionEvent | undefined,
  ): void {
    this.seqs.length = 0;
    this.positions = undefined;
    this.callOwner.clear();
    this.callsOf.clear();
    this.resultOf.clear();
    this.answeredBy.clear();
    for (const seq of seqs) {
      const event = get(seq);
      if (!event) throw new Error(`snapshot surface seq ${seq} has no event`);
      this.seqs.push(seq);
      this.track(event);
    }
    this.generation = generation;
    // Only generations after the restore are ever asked about; earlier ones count as touched
    // from position 0, which at worst makes a deriver re-project (never keep stale messages).
    this.replacedAt.length = 0;
    for (let g = 0; g < generation; g++) this.replacedAt.push(0);
  }

  /** Tool calls on the surface with no result on the surface, in proposal order. */
  openCalls(): Array<{ toolCallId: string; assistantSeq: number }> {
    const open: Array<{ toolCallId: string; assistantSeq: number }> = [];
    for (const [toolCallId, assistantSeq] of this.callOwner) {
      if (!this.resultOf.has(toolCallId)) open.push({ toolCallId, assistantSeq });
    }
    return open.sort((a, b) => this.position(a.assistantSeq) - this.position(b.assistantSeq));
  }

  /** How many leading surface entries no replace has touched since generation `since`. */
  unchangedPrefix(since: number): number {
    let prefix = Number.POSITIVE_INFINITY;
    for (let g = Math.max(0, since); g < this.replacedAt.length; g++) {
      prefix = Math.min(prefix, this.replacedAt[g]!);
    }
    return prefix;
  }

  /** The position of `seq` on the surface, or -1. */
  position(seq: number): number {
    if (!this.positions) {
      this.positions = new Map();
      for (let i = 0; i < this.seqs.length; i++) this.positions.set(this.seqs[i]!, i);
    }
    return this.positions.get(seq) ?? -1;
  }

  /** Why applying `op` for `event` would be illegal, or undefined when it is legal. */
  check(event: SessionEvent, op: SurfaceOp): string | undefined {
    let first = this.seqs.length;
    let last = first - 1;
    if (op.op === 'replace') {
      first = this.position(op.start);
      last = this.position(op.end);
      if (first < 0) return `replace start ${op.start} is not on the surface`;
      if (last < 0) return `replace end ${op.end} is not on the surface`;
      if (first > last) return `replace start ${op.start} comes after end ${op.end} on the surface`;
      const inRegion = (seq: number | undefined): boolean => {
        const at = seq === undefined ? -1 : this.position(seq);
        return at >= first && at <= last;
      };
      for (let i = first; i <= last; i++) {
        const seq = this.seqs[i]!;
        const answered = this.answeredBy.get(seq);
        if (answered !== undefined && !inRegion(this.callOwner.get(answered))) {
          return `the region holds the result of tool call ${answered} but not its call; replace both or neither`;
        }
        for (const id of this.callsOf.get(seq) ?? []) {
          const result = this.resultOf.get(id);
          if (result !== undefined && !inRegion(result)) {
            return `the region holds tool call ${id} but not its result (seq ${result}); replace both or neither`;
          }
        }
      }
    }
    return this.checkPairing(event, first, last);
  }

  /** True when `seq` sits at a surface position in `first..last` (never for an empty range). */
  private within(seq: number, first: number, last: number): boolean {
    if (first > last) return false;
    const at = this.position(seq);
    return at >= first && at <= last;
  }

  /** Tool pairing rules for `event`, with the surface positions `first..last` being replaced. */
  private checkPairing(event: SessionEvent, first: number, last: number): string | undefined {
    const answers = answeredCallOf(event);
    if (answers !== undefined) {
      const owner = this.callOwner.get(answers);
      if (owner === undefined || this.within(owner, first, last)) {
        return `tool/result answers ${answers}, which no assistant message on the surface proposed`;
      }
      if (this.resultOf.has(answers))
        return `tool call ${answers} already has a result on the surface`;
    }
    const ids = callIdsOf(event);
    if (ids) {
      for (const id of ids) {
        const owner = this.callOwner.get(id);
        if (owner !== undefined && !this.within(owner, first, last))
          return `tool call id ${id} is already on the surface`;
      }
    }
    return undefined;
  }

  /** Applies a checked op. Returns false when a replace region is missing (only for untrusted data). */
  apply(event: SessionEvent, op: SurfaceOp): boolean {
    if (op.op === 'append') {
      this.positions?.set(event.seq, this.seqs.length);
      this.seqs.push(event.seq);
    } else {
      const first = this.position(op.start);
      const last = this.position(op.end);
      if (first < 0 || last < first) return false;
      for (let i = first; i <= last; i++) this.forget(this.seqs[i]!);
      this.seqs.splice(first, last - first + 1, event.seq);
      this.positions = undefined;
      this.replacedAt.push(first);
      this.generation++;
    }
    this.track(event);
    return true;
  }

  private track(event: SessionEvent): void {
    const ids = callIdsOf(event);
    if (ids) {
      this.callsOf.set(event.seq, ids);
      for (const id of ids) this.callOwner.set(id, event.seq);
    }
    const answers = answeredCallOf(event);
    if (answers !== undefined) {
      this.resultOf.set(answers, event.seq);
      this.answeredBy.set(event.seq, answers);
    }
  }

  private forget(seq: number): void {
    for (const id of this.callsOf.get(seq) ?? []) {
      if (this.callOwner.get(id) === seq) this.callOwner.delete(id);
    }
    this.callsOf.delete(seq);
    const answered = this.answeredBy.get(seq);
    if (answered !== undefined) {
      if (this.resultOf.get(answered) === seq) this.resultOf.delete(answered);
      this.answeredBy.delete(seq);
    }
  }
}
