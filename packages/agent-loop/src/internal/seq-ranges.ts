/** Inclusive runs of consecutive seqs: `[[3, 9], [12, 12]]` stands for 3…9, 12. */
export type SeqRanges = Array<[number, number]>;

/** Compresses `seqs[from…]` into runs of consecutive numbers. */
export function toRanges(seqs: readonly number[], from = 0): SeqRanges {
  const ranges: SeqRanges = [];
  let current: [number, number] | undefined;
  for (let i = from; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    if (current && seq === current[1] + 1) current[1] = seq;
    else {
      current = [seq, seq];
      ranges.push(current);
    }
  }
  return ranges;
}

/** Expands runs back into seqs, appending to `into`. */
export function fromRanges(
  ranges: readonly (readonly [number, number])[],
  into: number[] = [],
): number[] {
  for (const [start, end] of ranges) for (let seq = start; seq <= end; seq++) into.push(seq);
  return into;
}
