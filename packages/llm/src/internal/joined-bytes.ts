import { isAppendOnly } from '@spine/protocol';

/** Bytes lent to one request: valid until `release()`, after which the lender may reuse them. */
export interface LeasedBytes {
  /** The bytes to send. */
  readonly bytes: Buffer;
  /** Returns the lease; call once the request is over. Extra calls do nothing. */
  release(): void;
}

/** Room kept in front of the list for the text that opens a request body. */
const HEADROOM = 4096;

/**
 * The UTF-8 bytes of a comma-joined list, kept in an append-only buffer: when the next list
 * starts with exactly the items of the previous one (compared with `===`), only the new items
 * are encoded and appended, so a request whose history only grew costs in proportion to what
 * is new. Bytes already handed out are never overwritten (a changed prefix or a full buffer
 * moves to a new buffer), so a body still being written to a socket cannot be corrupted by
 * the next request.
 *
 * {@link JoinedBytes.frame} also lends the whole request body as one contiguous buffer without
 * copying the list: the opening text is written into the room kept in front of it and the
 * closing text just after it. Those two regions are rewritten by the next framed request, so
 * while a lease is out every change moves to a new buffer instead.
 */
export class JoinedBytes<T> {
  private seen: SeenList<T> = NOTHING_SEEN;
  private bytes: Buffer = Buffer.alloc(0);
  /** End of the list's bytes, which start at {@link HEADROOM}. */
  private length = HEADROOM;
  /** Bumped per lease, so a stale `release()` cannot end a newer lease. */
  private lease = 0;
  private leased = false;

  constructor(private readonly text: (item: T) => string) {}

  /** `text(a),text(b),…` as UTF-8: a view of the buffer, valid for as long as it is held. */
  join(items: readonly T[]): Buffer {
    this.append(items, 0);
    return this.bytes.subarray(HEADROOM, this.length);
  }

  /**
   * `before`, the joined list and `after` as one buffer, lent until `release()`. Without a
   * copy of the list unless another lease is still out (concurrent requests) or `before`
   * does not fit in front of it; then the body is a fresh copy.
   */
  frame(items: readonly T[], before: Uint8Array, after: Uint8Array): LeasedBytes {
    if (this.leased || before.length > HEADROOM) {
      const list = this.join(items);
      return { bytes: Buffer.concat([before, list, after]), release: noop };
    }
    this.append(items, after.length);
    const bytes = this.bytes;
    const start = HEADROOM - before.length;
    bytes.set(before, start);
    bytes.set(after, this.length);
    this.leased = true;
    return new Lease(this, ++this.lease, bytes.subarray(start, this.length + after.length));
  }

  /** Ends lease number `lease` if it is still the current one. */
  endLease(lease: number): void {
    if (this.lease === lease) this.leased = false;
  }

  /** Brings the buffer up to `items`, with `spare` bytes of room after them. */
  private append(items: readonly T[], spare: number): void {
    const shared = extendedPrefix(this.seen, items);
    let needed = 0;
    for (let i = shared; i < items.length; i++) {
      needed += Buffer.byteLength(this.text(items[i] as T)) + (i > 0 ? 1 : 0);
    }
    let bytes = this.bytes;
    let length = this.length;
    if (shared === 0) {
      // A different list: start over in a new buffer (the old one may still be referenced).
      bytes = EMPTY;
      length = HEADROOM;
      this.leased = false;
    }
    // A lent body's closing bytes sit where new items go: then leave that buffer alone.
    if ((this.leased && needed > 0) || length + needed + spare > bytes.length) {
      if (needed + spare > 0) {
        // Doubling keeps appends amortised O(new bytes); the old buffer stays intact for any
        // body still referring to it.
        const grown = Buffer.allocUnsafeSlow(
          Math.max(length + needed + spare, bytes.length * 2, 64 * 1024),
        );
        if (length > HEADROOM) bytes.copy(grown, HEADROOM, HEADROOM, length);
        bytes = grown;
        // The new buffer is nobody's: a lease out on the old one does not bind it.
        this.leased = false;
      }
    }
    for (let i = shared; i < items.length; i++) {
      if (i > 0) bytes[length++] = 0x2c; // ','
      length += bytes.write(this.text(items[i] as T), length);
    }
    this.bytes = bytes;
    this.length = length;
    this.seen = seeList(items);
  }
}

const EMPTY = Buffer.alloc(0);

function noop(): void {}

/** A lease on a {@link JoinedBytes} buffer (a class: no closure per request). */
class Lease implements LeasedBytes {
  constructor(
    private readonly owner: { endLease(lease: number): void },
    private readonly id: number,
    readonly bytes: Buffer,
  ) {}

  release(): void {
    this.owner.endLease(this.id);
  }
}

/**
 * What a list held when an encoder last saw it: the array and its length then. An array marked
 * append-only (`markAppendOnly` in @spine/protocol) is kept by reference, since its first
 * `count` items never change; any other array is copied.
 */
export interface SeenList<T> {
  readonly items: readonly T[];
  readonly count: number;
}

/** The empty {@link SeenList}. */
export const NOTHING_SEEN: SeenList<never> = { items: [], count: 0 };

/** Remembers `items` as they are now; see {@link SeenList}. */
export function seeList<T>(items: readonly T[]): SeenList<T> {
  return { items: isAppendOnly(items) ? items : items.slice(), count: items.length };
}

/**
 * `seen.count` when `items` starts with exactly the items seen, else 0. The same append-only
 * array is trusted without a scan (the scan of a long history is what made a cold step slow).
 */
export function extendedPrefix<T>(seen: SeenList<T>, items: readonly T[]): number {
  const count = seen.count;
  if (count === 0 || count > items.length) return 0;
  const previous = seen.items;
  if (previous === items && isAppendOnly(items)) return count;
  for (let i = 0; i < count; i++) if (previous[i] !== items[i]) return 0;
  return count;
}
