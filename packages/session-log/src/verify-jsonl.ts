// Verifies the tamper-evident chain of a JSONL session file without parsing its events: per
// line, a seq read from the line's first bytes and one SHA-256 over the line.
import { CHAIN_HEX_LENGTH, carriesValue, chainKeyAt } from './internal/chain.js';
import { createHash, hash } from './internal/crypto.js';
import { CopiedChains, forkCopyOf } from './internal/fork-anchor.js';
import { closeSync, fstatSync, openSync, readSync } from './internal/fs.js';
import { readSnapshotMeta } from './internal/jsonl-snapshot.js';
import { tailOf } from './internal/verify-tail.js';

/** What kind of damage {@link verifyJsonlLog} found first. */
export type ChainProblemKind =
  | 'altered'
  | 'removed'
  | 'inserted'
  | 'reordered'
  | 'unchained'
  | 'corrupt'
  | 'truncated';

/** The first problem {@link verifyJsonlLog} found. */
export interface ChainProblem {
  /** What happened to the log at this point. */
  kind: ChainProblemKind;
  /** The seq of the event concerned (the one expected at this line for `removed`). */
  seq: number;
  /** The 1-based line of the file. */
  line: number;
  /** A sentence naming the event and what is wrong. */
  message: string;
}

/** Bytes after the last newline that {@link verifyJsonlLog} did not verify: a torn last write. */
export interface UnverifiedTail {
  /** The 1-based line the bytes start. */
  line: number;
  /** How many bytes (the log's size is `bytes` + these). */
  bytes: number;
  /** A sentence saying what the bytes are. */
  message: string;
}

/** What {@link verifyJsonlLog} resolves to. */
export interface VerifyJsonlResult {
  /** True when every line chains from the one before and nothing is missing at the end. */
  ok: boolean;
  /** Committed events read (complete lines). */
  events: number;
  /** Bytes verified (complete lines). */
  bytes: number;
  /**
   * Bytes after the last complete line that look like a torn last write (a crash during an
   * append: the start of the next event, or a whole next event without its newline): not
   * committed, not verified, dropped by the store on the next open. Other bytes there are a
   * `problem` instead.
   */
  tail?: UnverifiedTail;
  /** The first seq whose line carries a chain value (undefined: the log is not chained). */
  chainedFrom?: number;
  /** The chain value of the last line ('' when unchained). */
  head: string;
  /** The first problem, when not `ok`. */
  problem?: ChainProblem;
}

const CHUNK_BYTES = 8 * 1024 * 1024;
/** Bytes kept free before each line for the previous chain value. */
const GAP = CHAIN_HEX_LENGTH;
/** `,"h":"` */
const KEY_BYTES = 6;

/**
 * The SHA-256 (hex) over `previous` and `buffer[lineAt..lineAt + payloadEnd)`: `previous` is
 * written into the 32 bytes before the line (already checked, or the gap) so that one one-shot
 * digest covers both. The chain values of the store are always 32 hex digits or none.
 */
function lineValue(buffer: Buffer, lineAt: number, payloadEnd: number, previous: string): string {
  if (previous.length === 0)
    return hash('sha256', buffer.subarray(lineAt, lineAt + payloadEnd), 'hex');
  if (previous.length !== CHAIN_HEX_LENGTH) {
    const payload = buffer.subarray(lineAt, lineAt + payloadEnd);
    return createHash('sha256').update(previous, 'latin1').update(payload).digest('hex');
  }
  buffer.write(previous, lineAt - CHAIN_HEX_LENGTH, CHAIN_HEX_LENGTH, 'latin1');
  return hash('sha256', buffer.subarray(lineAt - CHAIN_HEX_LENGTH, lineAt + payloadEnd), 'hex');
}
const SEQ_PREFIX = Buffer.from('{"seq":', 'latin1');

/** The seq a line starts with (`{"seq":N,`), or -1. */
function seqOf(line: Buffer): number {
  if (line.length < SEQ_PREFIX.length + 2 || line.compare(SEQ_PREFIX, 0, 7, 0, 7) !== 0) return -1;
  let seq = 0;
  for (let i = SEQ_PREFIX.length; i < line.length && i < 24; i++) {
    const byte = line[i] as number;
    if (byte === 0x2c) return seq;
    if (byte < 0x30 || byte > 0x39) return -1;
    seq = seq * 10 + (byte - 0x30);
  }
  return -1;
}

const HEADER_TYPE = Buffer.from(',"type":"request/header",', 'latin1');
const CHAIN_FIELD = Buffer.from('"chain":', 'latin1');
const CHAIN_RECORD = /^"chain":\{"seq":(\d{1,16}),"h":"([0-9a-f]{32})"\}/;
/** Chain values of the lines just read, by seq modulo this (the writer lags at most 1,024). */
const RECENT = 4096;

/**
 * The chain record a `request/header` line carries (`body.chain`): null for a line of another
 * type, undefined for a header without one, 'malformed' for one not in the writer's form.
 * `"chain":` cannot occur inside a JSON string (its quotes would be escaped) and the header
 * body has no other key of that name.
 */
function recordedChainOf(
  line: Buffer,
  seq: number,
): { seq: number; h: string } | 'malformed' | null | undefined {
  const at = SEQ_PREFIX.length + String(seq).length;
  if (line.compare(HEADER_TYPE, 0, HEADER_TYPE.length, at, at + HEADER_TYPE.length) !== 0) {
    return null;
  }
  const field = line.indexOf(CHAIN_FIELD, at + HEADER_TYPE.length);
  if (field < 0) return undefined;
  const match = CHAIN_RECORD.exec(line.toString('latin1', field, field + 80));
  return match ? { seq: Number(match[1]), h: match[2] as string } : 'malformed';
}

/** True when a line at or after byte `from` (a line start) holds event `seq`. */
function laterLineHolds(fd: number, from: number, seq: number): boolean {
  const prefix = Buffer.from(`\n{"seq":${seq},`, 'latin1');
  const size = fstatSync(fd).size;
  let position = Math.max(0, from - 1);
  let carry = Buffer.alloc(0);
  while (position < size) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - position));
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    position += read;
    const data = Buffer.concat([carry, chunk.subarray(0, read)]);
    if (data.indexOf(prefix) >= 0) return true;
    carry = Buffer.from(data.subarray(Math.max(0, data.length - prefix.length)));
  }
  return false;
}

/**
 * Checks the chain of a JSONL session file: every line after the first chained one must carry
 * the chain value of its bytes and the previous value, with gapless seqs. Names the first
 * altered, removed, inserted or reordered event, including events no request carried; a line
 * left unchained after the chain began is named too. With the store's snapshot beside the log,
 * also checks that the log still reaches the snapshot's seq with the chain value it recorded (so
 * events cut from the end before it are found), and that each `request/header` that recorded
 * the chain head (`body.chain`: a recent line's seq and value) matches that line, so a log
 * rewritten and re-sealed before a request is found by that request's record. Lines written before the chain existed (logs of
 * earlier versions) are reported through `chainedFrom`, not as a problem. A torn last line (no
 * newline) is reported as `tail`, not verified, when it is what a crash leaves (the start of the
 * next event, or all of it without its newline and still chaining); other bytes there, and an
 * empty file, are a `problem`. In a fork, the copied `request/header`s' records are checked
 * against the parent's chain, recomputed from the values the fork's header recorded.
 *
 * @example
 * ```ts
 * const result = verifyJsonlLog('.spine/sessions/a1b2.jsonl');
 * if (!result.ok) console.error(result.problem?.message);
 * ```
 */
export function verifyJsonlLog(path: string): VerifyJsonlResult {
  return verifyJsonlLogInChunks(path, CHUNK_BYTES);
}

/**
 * {@link verifyJsonlLog} reading `chunkBytes` at a time (tests use small chunks). The chain
 * value of each seq that is a key of `valuesAt` is stored there (forks record two of them).
 */
export function verifyJsonlLogInChunks(
  path: string,
  chunkBytes: number,
  valuesAt?: Map<number, string>,
): VerifyJsonlResult {
  const fd = openSync(path, 'r');
  const snapshot = readSnapshotMeta(path); // the meta line only: seq and chain value
  let previous = '';
  let expected = 1;
  let lineNumber = 0;
  let previousLine = 0;
  let currentLine = 0;
  let chainedFrom: number | undefined;
  let problem: ChainProblem | undefined;
  let bytes = 0;
  const recentSeqs = new Float64Array(RECENT).fill(-1);
  const recentValues: string[] = new Array(RECENT).fill('');
  // A fork: the parent's chain over the copied events, recomputed from the value its header
  // recorded (see internal/fork-anchor.ts), for the records of the copied request headers.
  let fork: CopiedChains | undefined;
  let tail: UnverifiedTail | undefined;
  try {
    const size = fstatSync(fd).size;
    let position = 0;
    let lineStart = 0;
    const fail = (kind: ChainProblemKind, seq: number, message: string): void => {
      problem = { kind, seq, line: lineNumber, message };
    };
    // One buffer for the whole file: GAP bytes in front (each line then has 32 writable bytes
    // before it, where the previous value goes so that one one-shot digest covers both), the
    // carried partial line, then the next read.
    let buffer = Buffer.allocUnsafe(GAP + Math.min(chunkBytes, size));
    let carried = 0;
    while (position < size && !problem) {
      const want = GAP + carried + Math.min(chunkBytes, size - position);
      if (buffer.length < want) {
        const larger = Buffer.allocUnsafe(Math.max(want, buffer.length * 2));
        buffer.copy(larger, GAP, GAP, GAP + carried);
        buffer = larger;
      }
      const read = readSync(fd, buffer, GAP + carried, want - GAP - carried, position);
      if (read === 0) break;
      position += read;
      const data = buffer.subarray(GAP, GAP + carried + read);
      let start = 0;
      while (!problem) {
        const newline = data.indexOf(10, start);
        if (newline < 0) break;
        lineNumber++;
        const line = data.subarray(start, newline);
        const start0 = start;
        lineStart = position - data.length + start;
        start = newline + 1;
        if (line.length === 0) continue;
        previousLine = currentLine;
        currentLine = lineNumber;
        const seq = seqOf(line);
        if (seq < 0) {
          fail(
            'corrupt',
            expected,
            `line ${lineNumber} is not a session event (event ${expected} was expected there)`,
          );
        } else if (seq < expected) {
          fail(
            'inserted',
            seq,
            `line ${lineNumber} holds event ${seq} again after event ${expected - 1}: a copy was inserted, or events were reordered`,
          );
        } else if (seq > expected) {
          fail(
            'removed',
            expected,
            `event ${expected} is missing: line ${lineNumber} holds event ${seq} (events ${expected}..${seq - 1} were removed)`,
          );
          if (laterLineHolds(fd, lineStart, expected)) {
            fail(
              'reordered',
              expected,
              `event ${expected} is out of place: line ${lineNumber} holds event ${seq}, and event ${expected} comes later (events were reordered)`,
            );
          }
        } else {
          const payloadEnd = chainKeyAt(line, 0, line.length);
          if (payloadEnd < 0) {
            if (snapshot?.chain && snapshot.seq === seq) {
              fail(
                'unchained',
                seq,
                `event ${seq} (line ${lineNumber}) carries no chain value though its snapshot recorded one: the chain was stripped`,
              );
            } else if (chainedFrom !== undefined) {
              fail(
                'unchained',
                seq,
                `event ${seq} (line ${lineNumber}) carries no chain value though the chain began at event ${chainedFrom}: it was altered or inserted`,
              );
            }
          } else {
            chainedFrom ??= seq;
            const hex = lineValue(buffer, GAP + start0, payloadEnd, previous);
            const carries = carriesValue(line, payloadEnd + KEY_BYTES, hex);
            const value = hex.slice(0, CHAIN_HEX_LENGTH);
            if (seq === 1) {
              const copy = forkCopyOf(line);
              fork = copy && new CopiedChains(copy, RECENT);
            }
            const copied = fork?.copies(seq) === true;
            if (copied) {
              fork?.advance(seq, (from) =>
                lineValue(buffer, GAP + start0, payloadEnd, from).slice(0, CHAIN_HEX_LENGTH),
              );
            }
            if (!carries && chainedFrom === seq && seq > 1) {
              // The chain seems to start here, after unchained lines, yet does not start from
              // nothing: the line before had a chain value and lost it.
              lineNumber = previousLine;
              fail(
                'unchained',
                seq - 1,
                `event ${seq - 1} (line ${previousLine}) lost its chain value: event ${seq} chains from it`,
              );
            } else if (!carries) {
              fail(
                'altered',
                seq,
                `event ${seq} (line ${lineNumber}) does not match its chain value: it was altered (or event ${seq - 1} was altered and re-sealed)`,
              );
            } else if (seq === 1 && fork?.malformed) {
              fail(
                'altered',
                seq,
                `the header (line ${lineNumber}) records the parent's chain values not in the form the store writes: it was altered`,
              );
            } else if (copied && fork?.endDiffers(seq)) {
              fail(
                'altered',
                seq,
                `the events copied from ${fork.copy.parentId} (2..${seq}) do not give the parent's chain value the fork's header recorded at event ${seq}: a copied event was altered and re-sealed`,
              );
            } else if (snapshot?.chain && snapshot.seq === seq && snapshot.chain !== value) {
              fail(
                'altered',
                seq,
                `event ${seq} (line ${lineNumber}) does not carry the chain value its snapshot recorded: the log up to it was rewritten and re-sealed`,
              );
            } else {
              // A copied request header recorded the parent's chain: checked against the chain
              // recomputed from the fork's anchor, and not at all in a fork that has none
              // (forks of earlier versions, or of a parent not chained from its header).
              const parentValues = copied ? fork?.valuesFor(seq) : undefined;
              const recorded = copied && !parentValues ? null : recordedChainOf(line, seq);
              const slot = typeof recorded === 'object' && recorded ? recorded.seq % RECENT : 0;
              const values = parentValues ?? recentValues;
              if (recorded === 'malformed') {
                fail(
                  'altered',
                  seq,
                  `request/header ${seq} (line ${lineNumber}) carries a chain record not in the form the store writes: it was altered`,
                );
              } else if (recorded && (recorded.seq >= seq || recentSeqs[slot] !== recorded.seq)) {
                fail(
                  'altered',
                  seq,
                  `request/header ${seq} (line ${lineNumber}) records the chain value of event ${recorded.seq}, which is not among the ${RECENT} events before it (the store records a recent one): it was altered`,
                );
              } else if (recorded && values[slot] !== recorded.h) {
                fail(
                  'altered',
                  recorded.seq,
                  `request/header ${seq} (line ${lineNumber}) recorded the chain value ${recorded.h} for the ${copied ? `log it was copied from (${fork?.copy.parentId})` : 'log'} up to event ${recorded.seq}, which now gives ${values[slot]}: the log up to event ${recorded.seq} was rewritten and re-sealed`,
                );
              }
            }
            previous = value;
            recentSeqs[seq % RECENT] = seq;
            recentValues[seq % RECENT] = value;
            if (valuesAt?.has(seq)) valuesAt.set(seq, value);
          }
          if (!problem) {
            bytes += line.length + 1;
            expected++;
          }
        }
      }
      carried = data.length - start;
      if (carried > 0) buffer.copyWithin(GAP, GAP + start, GAP + data.length);
    }
    if (!problem && carried > 0) {
      const bytesLeft = buffer.subarray(GAP, GAP + carried);
      const found = tailOf(bytesLeft, expected, previous);
      if (found.torn) tail = { line: lineNumber + 1, bytes: carried, message: found.message };
      else
        problem = { kind: found.kind, seq: expected, line: lineNumber + 1, message: found.message };
    }
  } finally {
    closeSync(fd);
  }
  const events = expected - 1;
  if (!problem && events === 0 && !tail) {
    problem = {
      kind: 'corrupt',
      seq: 1,
      line: 1,
      message: 'the log is empty: it holds no session/header, so it is not a session',
    };
  }
  if (!problem && snapshot?.chain && snapshot.seq > events) {
    problem = {
      kind: 'truncated',
      seq: events + 1,
      line: lineNumber,
      message: `the log ends at event ${events} but its snapshot was taken at event ${snapshot.seq}: events ${events + 1}..${snapshot.seq} were removed`,
    };
  }
  const result: VerifyJsonlResult = {
    ok: problem === undefined,
    events,
    bytes,
    chainedFrom,
    head: previous,
    problem,
  };
  if (tail) result.tail = tail;
  return result;
}
