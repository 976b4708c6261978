/**
 * Caches the wire JSON of immutable objects by identity and joins arrays of them so that
 * re-encoding an array that only grew costs in proportion to the new items.
 *
 * Messages from `deriveMessages()` are shared, never-mutated objects: the first encoding of a
 * message is reused for every later request. The joined array text of the previous call is
 * kept too; when the new array starts with the same objects, only the tail is appended
 * (V8 concatenation builds a rope, so the old text is not copied here).
 */
export class FragmentCache<T extends object> {
  private readonly fragments = new WeakMap<T, string>();
  private lastItems: readonly T[] = [];
  private lastJoined = '';

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
    const previous = this.lastItems;
    let shared = 0;
    if (previous.length > 0 && previous.length <= items.length) {
      while (shared < previous.length && previous[shared] === items[shared]) shared++;
      if (shared !== previous.length) shared = 0;
    }
    let body = shared > 0 ? this.lastJoined : '';
    for (let i = shared; i < items.length; i++) {
      const item = items[i] as T;
      body = i === 0 ? this.fragment(item) : `${body},${this.fragment(item)}`;
    }
    this.lastItems = items.slice();
    this.lastJoined = body;
    return body;
  }
}
