// Where the second read of a streamed first open (loadStreamed in session-open.ts) looks for the
// events of the final surface.

/**
 * Seq ranges covering `seqs` for a second read: neighbours closer than a sixteenth of the log
 * share a range, and at most four ranges are read (each may start with a byte-level skip from
 * the start of the file), merging across the smallest gaps first.
 */
export function surfaceRuns(seqs: number[], lastSeq: number): Array<[number, number]> {
  seqs.sort((a, b) => a - b);
  const runs: Array<[number, number]> = [];
  const near = Math.max(1024, Math.floor(lastSeq / 16));
  for (const seq of seqs) {
    const run = runs[runs.length - 1];
    if (run && seq - run[1] <= near) run[1] = seq;
    else runs.push([seq, seq]);
  }
  while (runs.length > 4) {
    let at = 1;
    for (let i = 2; i < runs.length; i++) {
      if (runs[i]![0] - runs[i - 1]![1] < runs[at]![0] - runs[at - 1]![1]) at = i;
    }
    runs[at - 1]![1] = runs[at]![1];
    runs.splice(at, 1);
  }
  return runs;
}
