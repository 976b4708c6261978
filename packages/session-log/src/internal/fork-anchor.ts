// How a fork keeps the chain records of the request headers it copied checkable. A fork copies
// events 2..atSeq byte for byte (same seqs) under its own header, so its chain values differ from
// the parent's, while each copied `request/header` still records (`body.chain`) a value of the
// parent's chain: the request was built and sent in the parent. The request bodies are left as
// they are (`replay --verify` rebuilds them byte for byte); instead the fork's header records the
// parent's chain values at seq 1 and at atSeq (`parent.chain: { start, end }`). From `start`,
// `verifyJsonlLog` recomputes the parent's chain over the copied lines beside the fork's own, checks
// the copied headers' records against it, and checks that it reaches `end` at atSeq.

/** The parent's chain values a fork's header records (`parent.chain`). */
export interface ForkChainAnchor {
  /** The parent's chain value at seq 1 (the copied event 2 chains from it in the parent). */
  start: string;
  /** The parent's chain value at `atSeq` (the last copied event). */
  end: string;
  /**
   * When the parent is a fork itself: the chains its own copied events came from, each with the
   * last seq copied from it and its value at seq 1 ('' when not known: a fork of an earlier
   * version). A copied request header belongs to the one with the smallest `atSeq` at or above it.
   */
  ancestors?: { atSeq: number; start: string }[];
}

/** The anchor a fork of `parent` at `atSeq` records, given the parent's values at 1 and atSeq. */
export function anchorForFork(
  parentHeader: { parent?: unknown },
  atSeq: number,
  values: { start: string; end: string },
): ForkChainAnchor {
  const anchor: ForkChainAnchor = { start: values.start, end: values.end };
  const copy = copyOfParentLink(parentHeader.parent);
  if (!copy) return anchor;
  const levels =
    typeof copy.anchor === 'object'
      ? [{ atSeq: copy.atSeq, start: copy.anchor.start }, ...(copy.anchor.ancestors ?? [])]
      : [{ atSeq: copy.atSeq, start: '' }];
  const ancestors = levels
    .map((level) => ({ atSeq: Math.min(level.atSeq, atSeq), start: level.start }))
    .filter((level) => level.atSeq >= 2);
  if (ancestors.length > 0) anchor.ancestors = ancestors;
  return anchor;
}

/** What a fork's header says about the events it copied. */
export interface ForkCopy {
  /** The last copied seq (the parent's fork point). */
  atSeq: number;
  /** The parent's id. */
  parentId: string;
  /** The parent's chain values, when the fork recorded them ('malformed' when not in the writer's form). */
  anchor?: ForkChainAnchor | 'malformed';
}

const HEX = /^[0-9a-f]{32}$/;

function anchorOf(chain: unknown, atSeq: number): ForkChainAnchor | 'malformed' {
  const value = chain as { start?: unknown; end?: unknown; ancestors?: unknown } | null;
  if (
    typeof value?.start !== 'string' ||
    typeof value.end !== 'string' ||
    !HEX.test(value.start) ||
    !HEX.test(value.end)
  ) {
    return 'malformed';
  }
  const anchor: ForkChainAnchor = { start: value.start, end: value.end };
  if (value.ancestors === undefined) return anchor;
  if (!Array.isArray(value.ancestors)) return 'malformed';
  const ancestors: { atSeq: number; start: string }[] = [];
  for (const item of value.ancestors as { atSeq?: unknown; start?: unknown }[]) {
    const ok =
      Number.isInteger(item?.atSeq) &&
      (item.atSeq as number) >= 2 &&
      (item.atSeq as number) <= atSeq &&
      typeof item.start === 'string' &&
      (item.start === '' || HEX.test(item.start));
    if (!ok) return 'malformed';
    ancestors.push({ atSeq: item.atSeq as number, start: item.start as string });
  }
  anchor.ancestors = ancestors;
  return anchor;
}

/** The copy a header body's `parent` describes (undefined: not a fork). */
function copyOfParentLink(link: unknown): ForkCopy | undefined {
  const parent = link as
    | { sessionId?: unknown; atSeq?: unknown; toolCallId?: unknown; chain?: unknown }
    | undefined;
  if (!parent || typeof parent !== 'object' || parent.toolCallId !== undefined) return undefined;
  if (typeof parent.atSeq !== 'number' || !Number.isInteger(parent.atSeq)) return undefined;
  const copy: ForkCopy = { atSeq: parent.atSeq, parentId: String(parent.sessionId) };
  if (parent.chain !== undefined) copy.anchor = anchorOf(parent.chain, parent.atSeq);
  return copy;
}

/**
 * The copy a header line (seq 1, without its newline) describes: undefined when the session is
 * not a fork (no parent, or a subagent's session, whose parent link names a `task` call and whose
 * events are its own).
 */
export function forkCopyOf(line: Uint8Array): ForkCopy | undefined {
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(line.buffer, line.byteOffset, line.length).toString('utf8'));
  } catch {
    return undefined;
  }
  return copyOfParentLink((header as { body?: { parent?: unknown } } | null)?.body?.parent);
}

interface Level {
  /** The last seq copied from this chain. */
  upTo: number;
  /** Its value at seq 1 ('' when not known: its records are not checked). */
  start: string;
  previous: string;
  /** Its values by seq modulo the ring size. */
  values: string[];
}

/**
 * The chains a fork's copied events came from, recomputed beside the fork's own while its lines
 * are verified: the parent's (from `anchor.start`) and, for a fork of a fork, each ancestor's.
 */
export class CopiedChains {
  /** Whether the fork's header recorded them in the writer's form. */
  readonly malformed: boolean;
  private readonly levels: Level[];

  constructor(
    readonly copy: ForkCopy,
    private readonly ring: number,
  ) {
    this.malformed = copy.anchor === 'malformed';
    const anchor = typeof copy.anchor === 'object' ? copy.anchor : undefined;
    const levels = anchor
      ? [{ atSeq: copy.atSeq, start: anchor.start }, ...(anchor.ancestors ?? [])]
      : [{ atSeq: copy.atSeq, start: '' }];
    this.levels = levels.map((level) => {
      const values: string[] = new Array(ring).fill('');
      values[1 % ring] = level.start;
      return { upTo: level.atSeq, start: level.start, previous: level.start, values };
    });
  }

  /** True when `seq` is one of the copied events. */
  copies(seq: number): boolean {
    return seq > 1 && seq <= this.copy.atSeq;
  }

  /** Takes copied event `seq` into each chain it came from; `valueAfter(previous)` hashes it. */
  advance(seq: number, valueAfter: (previous: string) => string): void {
    for (const level of this.levels) {
      if (level.start === '' || seq > level.upTo) continue;
      level.previous = valueAfter(level.previous);
      level.values[seq % this.ring] = level.previous;
    }
  }

  /** At the fork point: true when the parent's chain no longer reaches the recorded value. */
  endDiffers(seq: number): boolean {
    const anchor = this.copy.anchor;
    return (
      typeof anchor === 'object' &&
      seq === this.copy.atSeq &&
      this.levels[0]?.previous !== anchor.end
    );
  }

  /**
   * The values (by seq modulo the ring) of the chain copied request header `seq` recorded from;
   * undefined when that chain is not known. Of chains copied up to the same seq, the oldest
   * (listed last) is the one the events came from.
   */
  valuesFor(seq: number): string[] | undefined {
    let found: Level | undefined;
    for (const level of this.levels)
      if (level.upTo >= seq && (!found || level.upTo <= found.upTo)) found = level;
    return found && found.start !== '' ? found.values : undefined;
  }
}
