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

/** A short key for a possibly long text: hash plus length (collisions are negligible here). */
export function textKey(text: string): string {
  return `${fnv1a(text).toString(36)}.${text.length}`;
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
}

/**
 * Measures how much a text repeats itself: word n-grams (n = `size`) are hashed and counted.
 * A paragraph written three times gives a `maxCount` of 3 and a `repeatedShare` near 2/3;
 * ordinary prose gives 1 and 0.
 */
export function repetitionOf(words: readonly string[], size: number): Repetition {
  const positions = words.length - size + 1;
  if (positions <= 1) return { maxCount: positions > 0 ? 1 : 0, repeatedShare: 0, phrase: '' };
  const counts = new Map<string, number>();
  let repeated = 0;
  let maxCount = 0;
  let maxAt = 0;
  for (let i = 0; i < positions; i++) {
    let gram = words[i] as string;
    for (let j = 1; j < size; j++) gram += ` ${words[i + j] as string}`;
    const count = (counts.get(gram) ?? 0) + 1;
    counts.set(gram, count);
    if (count > 1) repeated++;
    if (count > maxCount) {
      maxCount = count;
      maxAt = i;
    }
  }
  return {
    maxCount,
    repeatedShare: repeated / positions,
    phrase: words.slice(maxAt, maxAt + size).join(' '),
  };
}
