import {
  extendedPrefix,
  JoinedBytes,
  type LeasedBytes,
  NOTHING_SEEN,
  type SeenList,
  seeList,
} from './joined-bytes.js';

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
  private lastItems: SeenList<T> = NOTHING_SEEN;
  private lastJoined = '';
  private readonly bytes = new JoinedBytes<T>((item) => this.fragment(item));

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
    this.lastItems = seeList(items);
    this.lastJoined = body;
    return body;
  }

  /** The UTF-8 bytes of `join(items)`; see {@link JoinedBytes}. */
  joinBytes(items: readonly T[]): Buffer {
    return this.bytes.join(items);
  }

  /** `before`, the UTF-8 of `join(items)` and `after` as one lent buffer; see {@link JoinedBytes.frame}. */
  frameBytes(items: readonly T[], before: Uint8Array, after: Uint8Array): LeasedBytes {
    return this.bytes.frame(items, before, after);
  }
}
