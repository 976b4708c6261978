// What `verifyJsonlLog` makes of the bytes after a log's last newline: a torn last write, which
// a crash leaves and the store drops on the next open, or bytes that were appended or altered.
import type { ChainProblemKind } from '../verify-jsonl.js';
import { carriesValue, chainKeyAt, chainValue } from './chain.js';

/** `,"h":"` */
const KEY_BYTES = 6;

/**
 * What the bytes after the last newline are. A crash during an append leaves the start of the
 * next line (`{"seq":N,` or a prefix of it, then anything: the write was cut), zeros (a file
 * system that extended the file before the data reached it), or the whole next line without its
 * newline; such a line must still chain, or it was altered. Anything else was appended by hand.
 */
export function tailOf(
  bytes: Buffer,
  expected: number,
  previous: string,
): { torn: true; message: string } | { torn: false; kind: ChainProblemKind; message: string } {
  const start = Buffer.from(`{"seq":${expected},`, 'latin1');
  const shared = Math.min(start.length, bytes.length);
  const zeros = bytes.every((byte) => byte === 0);
  if (!zeros && bytes.compare(start, 0, shared, 0, shared) !== 0) {
    return {
      torn: false,
      kind: 'corrupt',
      message: `the last ${bytes.length} byte(s), after event ${expected - 1}, have no newline and are not the start of event ${expected}: they were appended to the log`,
    };
  }
  const payloadEnd = chainKeyAt(bytes, 0, bytes.length);
  if (!zeros && payloadEnd > 0) {
    const value = chainValue(previous, bytes.subarray(0, payloadEnd));
    if (!carriesValue(bytes, payloadEnd + KEY_BYTES, value)) {
      return {
        torn: false,
        kind: 'altered',
        message: `event ${expected} (the last line, without its newline) does not match its chain value: it was altered`,
      };
    }
    return {
      torn: true,
      message: `event ${expected} chains but lacks its newline (${bytes.length} bytes): a torn last write, not committed; the store drops it on the next open`,
    };
  }
  return {
    torn: true,
    message: `the last ${bytes.length} byte(s) are an unfinished event ${expected} (no newline): a torn last write, not committed or verified; the store drops them on the next open`,
  };
}
