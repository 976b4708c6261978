// Verifies the tamper-evident chain of a JSONL session file without parsing its events: per
// line, a seq read from the line's first bytes and one SHA-256 over the line.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { chainOf, chainValue } from './internal/chain.js';
import { readSnapshotFile } from './internal/jsonl-snapshot.js';

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

/** What {@link verifyJsonlLog} resolves to. */
export interface VerifyJsonlResult {
  /** True when every line chains from the one before and nothing is missing at the end. */
  ok: boolean;
  /** Committed events read (complete lines). */
  events: number;
  /** Bytes read. */
  bytes: number;
  /** The first seq whose line carries a chain value (undefined: the log is not chained). */
  chainedFrom?: number;
  /** The chain value of the last line ('' when unchained). */
  head: string;
  /** The first problem, when not `ok`. */
  problem?: ChainProblem;
}

const CHUNK_BYTES = 8 * 1024 * 1024;
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
 * events cut from the end before it are found). Lines written before the chain existed (logs of
 * earlier versions) are reported through `chainedFrom`, not as a problem. A torn last line (no
 * newline) is not read.
 *
 * @example
 * ```ts
 * const result = verifyJsonlLog('.spine/sessions/a1b2.jsonl');
 * if (!result.ok) console.error(result.problem?.message);
 * ```
 */
export function verifyJsonlLog(path: string): VerifyJsonlResult {
  const fd = openSync(path, 'r');
  const snapshot = readSnapshotFile(path);
  let previous = '';
  let expected = 1;
  let lineNumber = 0;
  let previousLine = 0;
  let currentLine = 0;
  let chainedFrom: number | undefined;
  let problem: ChainProblem | undefined;
  let bytes = 0;
  try {
    const size = fstatSync(fd).size;
    let position = 0;
    let pending: Buffer | undefined;
    let lineStart = 0;
    const fail = (kind: ChainProblemKind, seq: number, message: string): void => {
      problem = { kind, seq, line: lineNumber, message };
    };
    while (position < size && !problem) {
      const carried = pending?.length ?? 0;
      const chunk = Buffer.allocUnsafe(carried + Math.min(CHUNK_BYTES, size - position));
      if (pending) pending.copy(chunk, 0);
      const read = readSync(fd, chunk, carried, chunk.length - carried, position);
      if (read === 0) break;
      position += read;
      const data = chunk.subarray(0, carried + read);
      let start = 0;
      while (!problem) {
        const newline = data.indexOf(10, start);
        if (newline < 0) break;
        lineNumber++;
        const line = data.subarray(start, newline);
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
          const chained = chainOf(line);
          if (!chained) {
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
            const value = chainValue(previous, line.subarray(0, chained.payloadEnd));
            if (value !== chained.head && chainedFrom === seq && seq > 1) {
              // The chain seems to start here, after unchained lines, yet does not start from
              // nothing: the line before had a chain value and lost it.
              lineNumber = previousLine;
              fail(
                'unchained',
                seq - 1,
                `event ${seq - 1} (line ${previousLine}) lost its chain value: event ${seq} chains from it`,
              );
            } else if (value !== chained.head) {
              fail(
                'altered',
                seq,
                `event ${seq} (line ${lineNumber}) does not match its chain value: it was altered (or event ${seq - 1} was altered and re-sealed)`,
              );
            } else if (snapshot?.chain && snapshot.seq === seq && snapshot.chain !== value) {
              fail(
                'altered',
                seq,
                `event ${seq} (line ${lineNumber}) does not carry the chain value its snapshot recorded: the log up to it was rewritten and re-sealed`,
              );
            }
            previous = value;
          }
          if (!problem) {
            bytes += line.length + 1;
            expected++;
          }
        }
      }
      pending = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
    }
  } finally {
    closeSync(fd);
  }
  const events = expected - 1;
  if (!problem && snapshot?.chain && snapshot.seq > events) {
    problem = {
      kind: 'truncated',
      seq: events + 1,
      line: lineNumber,
      message: `the log ends at event ${events} but its snapshot was taken at event ${snapshot.seq}: events ${events + 1}..${snapshot.seq} were removed`,
    };
  }
  return { ok: problem === undefined, events, bytes, chainedFrom, head: previous, problem };
}
