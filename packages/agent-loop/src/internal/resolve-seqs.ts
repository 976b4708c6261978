import type { RecordedSeqs, RequestHeaderBody, SessionLog } from '@spine/protocol';
import { fromRanges } from './seq-ranges.js';

/**
 * Expands the message seqs a `request/header` recorded, following its `base` chain.
 * `cache` maps header seqs already resolved to their seqs (replay passes one along).
 */
export function resolveSeqs(
  session: Pick<SessionLog, 'get'>,
  headerSeq: number,
  cache?: Map<number, number[]>,
): number[] {
  const chain: RecordedSeqs[] = [];
  let start: number[] = [];
  let seq: number | undefined = headerSeq;
  while (seq !== undefined) {
    const cached = cache?.get(seq);
    if (cached) {
      start = cached;
      break;
    }
    const event = session.get(seq);
    if (event?.type !== 'request/header') {
      throw new Error(`seq ${seq} is not a request/header`);
    }
    const recorded = (event.body as RequestHeaderBody).seqs;
    chain.push(recorded);
    seq = recorded.base;
  }
  let seqs = start;
  for (let i = chain.length - 1; i >= 0; i--) {
    const recorded = chain[i] as RecordedSeqs;
    const next = recorded.base === undefined ? [] : seqs.slice(0, recorded.keep ?? 0);
    seqs = fromRanges(recorded.ranges, next);
  }
  return seqs;
}
