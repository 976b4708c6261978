/**
 * The UTF-8 bytes of a comma-joined list, kept in an append-only buffer: when the next list
 * starts with exactly the items of the previous one (compared with `===`), only the new items
 * are encoded and appended, so a request whose history only grew costs in proportion to what
 * is new. Bytes already handed out are never overwritten (a changed prefix or a full buffer
 * moves to a new buffer), so a body still being written to a socket cannot be corrupted by
 * the next request.
 */
export class JoinedBytes<T> {
  private items: readonly T[] = [];
  private bytes: Buffer = Buffer.alloc(0);
  private length = 0;

  constructor(private readonly text: (item: T) => string) {}

  /** `text(a),text(b),…` as UTF-8: a view of the buffer, valid for as long as it is held. */
  join(items: readonly T[]): Buffer {
    const shared = extendedPrefix(this.items, items);
    if (shared === 0) {
      this.bytes = Buffer.alloc(0);
      this.length = 0;
    }
    let needed = 0;
    for (let i = shared; i < items.length; i++) {
      needed += Buffer.byteLength(this.text(items[i] as T)) + (i > 0 ? 1 : 0);
    }
    let bytes = this.bytes;
    let length = this.length;
    if (length + needed > bytes.length) {
      // Doubling keeps appends amortised O(new bytes); the old buffer stays intact for any
      // body still referring to it.
      const grown = Buffer.allocUnsafeSlow(Math.max(length + needed, bytes.length * 2, 64 * 1024));
      bytes.copy(grown, 0, 0, length);
      bytes = grown;
    }
    for (let i = shared; i < items.length; i++) {
      if (i > 0) bytes[length++] = 0x2c; // ','
      length += bytes.write(this.text(items[i] as T), length);
    }
    this.bytes = bytes;
    this.length = length;
    this.items = items.slice();
    return bytes.subarray(0, length);
  }
}

/** `previous.length` when `items` starts with exactly the items of `previous`, else 0. */
export function extendedPrefix<T>(previous: readonly T[], items: readonly T[]): number {
  if (previous.length === 0 || previous.length > items.length) return 0;
  for (let i = 0; i < previous.length; i++) if (previous[i] !== items[i]) return 0;
  return previous.length;
}
