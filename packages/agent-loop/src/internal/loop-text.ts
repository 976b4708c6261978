import { hash as oneShotHash } from 'node:crypto';

// Text helpers of the loop detector: a cheap string hash and the n-gram repetition measure of
// one assistant answer. Both are linear in the text and independent of the log's length.

/** FNV-1a (32 bit) of a string's UTF-16 code units, as an unsigned integer. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * A short key for a possibly long text: SHA-1 (native, one call) plus length. Not a security
 * measure: it only tells "seen before" for the loop detector.
 */
export function textKey(text: string): string {
  if (text.length < 64) return text;
  return `${oneShotHash('sha1', text, 'base64')}.${text.length}`;
}

/** The words of a text, lower-cased (punctuation kept: code and prose both tokenise sensibly). */
export function wordsOf(text: string): string[] {
  const words = text.toLowerCase().split(/\s+/);
  const out: string[] = [];
  for (const word of words) if (word.length > 0) out.push(word);
  return out;
}

/** What {@link repetitionOf} measured. */
export interface Repetition {
  /** The most frequent word n-gram's number of occurrences. */
  maxCount: number;
  /** Share of n-gram positions whose n-gram occurred earlier in the text (0–1). */
  repeatedShare: number;
  /** The most frequent n-gram, as text. */
  phrase: string;
  /** A hash of the whole word sequence (equal texts, up to case and spacing, hash equal). */
  whole: number;
}

/**
 * Measures how much a text repeats itself: word n-grams (n = `size`) are hashed (a rolling hash
 * of the words' hashes, so each position costs O(1)) and counted. A paragraph written three
 * times gives a `maxCount` of 3 and a `repeatedShare` near 2/3; ordinary prose gives 1 and 0.
 */
export function repetitionOf(words: readonly string[], size: number): Repetition {
  const hashes = new Uint32Array(words.length);
  let whole = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) {
    const word = fnv1a(words[i] as string);
    hashes[i] = word;
    whole = (Math.imul(whole ^ word, 0x01000193) + i) >>> 0;
  }
  const positions = words.length - size + 1;
  if (positions <= 1) {
    return { maxCount: positions > 0 ? 1 : 0, repeatedShare: 0, phrase: '', whole };
  }
  // h(i) = sum_j hashes[i + j] * B^(size - 1 - j) mod 2^32, rolled from position to position.
  const BASE = 0x9e3779b1;
  let top = 1;
  for (let j = 1; j < size; j++) top = Math.imul(top, BASE);
  let hash = 0;
  for (let j = 0; j < size; j++) hash = (Math.imul(hash, BASE) + (hashes[j] as number)) >>> 0;
  const table = scratchTable(positions);
  const mask = table.keys.length - 1;
  let repeated = 0;
  let maxCount = 0;
  let maxAt = 0;
  for (let i = 0; ; i++) {
    const count = countInto(table, mask, hash);
    if (count > 1) repeated++;
    if (count > maxCount) {
      maxCount = count;
      maxAt = i;
    }
    if (i + 1 >= positions) break;
    const out = Math.imul(hashes[i] as number, top);
    hash = (Math.imul((hash - out) >>> 0, BASE) + (hashes[i + size] as number)) >>> 0;
  }
  return {
    maxCount,
    repeatedShare: repeated / positions,
    phrase: words.slice(maxAt, maxAt + size).join(' '),
    whole,
  };
}

/** An open-addressing count table over 32-bit hashes (one slot per key; 0 marks a free slot). */
interface CountTable {
  keys: Uint32Array;
  counts: Uint32Array;
  /** Slots in use, cleared before each text. */
  used: Uint32Array;
  size: number;
}

let scratch: CountTable | undefined;

/** The shared table, cleared, with room for `entries` keys at most half full. */
function scratchTable(entries: number): CountTable {
  let capacity = 64;
  while (capacity < entries * 2) capacity *= 2;
  if (!scratch || scratch.keys.length < capacity) {
    scratch = {
      keys: new Uint32Array(capacity),
      counts: new Uint32Array(capacity),
      used: new Uint32Array(capacity),
      size: 0,
    };
    return scratch;
  }
  for (let i = 0; i < scratch.size; i++) {
    const slot = scratch.used[i] as number;
    scratch.keys[slot] = 0;
    scratch.counts[slot] = 0;
  }
  scratch.size = 0;
  return scratch;
}

/** Adds one occurrence of `hash` and returns its count so far. */
function countInto(table: CountTable, mask: number, hash: number): number {
  const key = hash === 0 ? 1 : hash;
  let slot = key & mask;
  for (;;) {
    const held = table.keys[slot] as number;
    if (held === key) {
      const count = (table.counts[slot] as number) + 1;
      table.counts[slot] = count;
      return count;
    }
    if (held === 0) {
      table.keys[slot] = key;
      table.counts[slot] = 1;
      table.used[table.size++] = slot;
      return 1;
    }
    slot = (slot + 1) & mask;
  }
}
