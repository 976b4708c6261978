/**
 * Caches the wire JSON of immutable objects by identity and joins arrays of them so that
 * re-encoding an array that only grew costs in proportion to the new items.
 *
 * Messages from `deriveMessages()` are shared, never-mutated objects: the first encoding of a
 * message is reused for every later request. The joined array text of the previous call is
 * kept too; when the new array starts with the same objects, only the tail is appended
 * (V8 concatenation builds a rope, so the old text is not copied here).
 *
 * The same join is also kept as UTF-8 bytes ({@link FragmentCache.joinBytes}), which is what
 * goes on the wire: converting a multi-megabyte rope to bytes on every request means
 * flattening it and re-encoding it, which costs far more than the request itself.
 */
export class FragmentCache<T extends object> {
  private readonly fragments = new WeakMap<T, string>();
  private lastItems: readonly T[] = [];
  private lastJoined = '';
  private byteItems: readonly T[] = [];
  private bytes: Buffer = Buffer.alloc(0);
  private byteLength = 0;

  constructor(private readonly encode: (item: T) => string) {}

  /** The wire JSON of one item, encoded at most once per object. */
  fragment(item: T): string {
    let text = this.fragments.get(item);
    if (text === undefined) {
      text = this.encode(item);
      this.fragments.set(item, text);
    }
    return text;
  }

  /** `a,b,c` (no brackets) from cached fragments, reusing the previous result's prefix when possible. */
  join(items: readonly T[]): string {
    const shared = extendedPrefix(this.lastItems, items);
    let body = shared > 0 ? this.lastJoined : '';
    for (let i = shared; i < items.length; i++) {
      const item = items[i] as T;
      body = i === 0 ? this.fragment(item) : `${body},${this.fragment(item)}`;
    }
    this.lastItems = items.slice();
    this.lastJoined = body;
    return body;
  }

  /**
   * The UTF-8 bytes of `join(items)`, as a view of an append-only buffer: when `items` extends
   * the previous array only the new fragments are encoded and appended. Bytes already handed
   * out are never overwritten (a changed prefix or a full buffer moves to a new buffer), so a
   * body that is still being written to a socket cannot be corrupted by the next request.
   */
  joinBytes(items: readonly T[]): Buffer {
    const shared = extendedPrefix(this.byteItems, items);
    if (shared < this.byteItems.length || shared === 0) {
      this.bytes = Buffer.alloc(0);
      this.byteLength = 0;
    }
    let needed = 0;
    for (let i = shared; i < items.length; i++) {
      needed += Buffer.byteLength(this.fragment(items[i] as T)) + (i > 0 ? 1 : 0);
    }
    let bytes = this.bytes;
    let length = this.byteLength;
    if (length + needed > bytes.length) {
      // Doubling keeps appends amortised O(new bytes); the old buffer stays intact for any
      // body still referring to it.
      const grown = Buffer.allocUnsafeSlow(Math.max(length + needed, bytes.length * 2, 64 * 1024));
      bytes.copy(grown, 0, 0, length);
      bytes = grown;
    }
    for (let i = shared; i < items.length; i++) {
      if (i > 0) bytes[length++] = 0x2c; // ','
      length += bytes.write(this.fragment(items[i] as T), length);
    }
    this.bytes = bytes;
    this.byteLength = length;
    this.byteItems = items.slice();
    return bytes.subarray(0, length);
  }
}

/** `previous.length` when `items` starts with exactly the objects of `previous`, else 0. */
function extendedPrefix<T>(previous: readonly T[], items: readonly T[]): number {
  if (previous.length === 0 || previous.length > items.length) return 0;
  for (let i = 0; i < previous.length; i++) if (previous[i] !== items[i]) return 0;
  return previous.length;
}
