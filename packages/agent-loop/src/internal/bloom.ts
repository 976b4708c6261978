// A Bloom filter over strings whose bits serialise to base64 (`toJSON`), so that it can sit in a
// projection's state and be written into snapshots as it is. Deterministic: the same strings in
// any order set the same bits, on any machine (FNV-1a and a second multiplicative hash over UTF-16
// code units, combined by double hashing).

/** A fixed-size Bloom filter: `mayHave` is false only for strings never added. */
export class BloomBits {
  readonly bits: Uint8Array;
  readonly probes: number;
  private readonly mask: number;

  /** `size` in bits (a power of two, at least 8); `probes` bits set per string. */
  constructor(size: number, probes: number, bits?: Uint8Array) {
    if (!Number.isSafeInteger(size) || size < 8 || (size & (size - 1)) !== 0) {
      throw new RangeError(`bloom size ${size} is not a power of two of at least 8`);
    }
    if (!Number.isSafeInteger(probes) || probes < 1 || probes > 32) {
      throw new RangeError(`bloom probes ${probes} is not in 1..32`);
    }
    this.bits = bits ?? new Uint8Array(size / 8);
    this.probes = probes;
    this.mask = size - 1;
  }

  /** Parses the form {@link BloomBits.toJSON} writes (`<probes>:<base64 bits>`). */
  static decode(text: string): BloomBits {
    const colon = text.indexOf(':');
    const probes = Number(text.slice(0, colon));
    const bits = new Uint8Array(Buffer.from(text.slice(colon + 1), 'base64'));
    return new BloomBits(bits.length * 8, probes, bits);
  }

  /** Records `value`. */
  add(value: string): void {
    const [h1, h2] = hashes(value);
    for (let i = 0; i < this.probes; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      this.bits[bit >>> 3] = (this.bits[bit >>> 3] as number) | (1 << (bit & 7));
    }
  }

  /** False when `value` was never added; true when it was, or (rarely) by collision. */
  mayHave(value: string): boolean {
    const [h1, h2] = hashes(value);
    for (let i = 0; i < this.probes; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      if (((this.bits[bit >>> 3] as number) & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }

  /**
   * The same filter in `size` bits (a power of two, at most this one's): bit `b` moves to
   * `b & (size - 1)`, which is where adding the same strings to a filter of `size` bits puts it,
   * so nothing added is lost and lookups agree with a filter built at that size.
   */
  foldTo(size: number): BloomBits {
    const bytes = size / 8;
    if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > this.bits.length) {
      throw new RangeError(`cannot fold ${this.bits.length * 8} bits to ${size}`);
    }
    const folded = new BloomBits(size, this.probes);
    for (let i = 0; i < this.bits.length; i++) {
      const at = i & (bytes - 1);
      folded.bits[at] = (folded.bits[at] as number) | (this.bits[i] as number);
    }
    return folded;
  }

  /** `<probes>:<base64 of the bits>`: what a snapshot keeps. */
  toJSON(): string {
    return `${this.probes}:${Buffer.from(this.bits.buffer, this.bits.byteOffset, this.bits.length).toString('base64')}`;
  }
}

/** Two independent 32-bit hashes of `value` (the second odd, so probes never repeat early). */
function hashes(value: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x9e3779b9;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  return [h1 >>> 0, (h2 | 1) >>> 0];
}
