import type { SessionEvent } from '@spine/protocol';
import { SessionCorruptError } from '../errors.js';
import { compactEvent, structuralProblem } from './event-check.js';
import { closeSync, fstatSync, openSync, readSync } from './fs.js';
import { BATCH_EVENTS } from './store-hooks.js';

/** What reading a JSONL session file found. */
export interface JsonlReadResult {
  /** The committed events, `fromSeq..lastSeq`. */
  events: SessionEvent[];
  /** File size in bytes. */
  size: number;
  /** Bytes holding committed events; anything after is a torn last write. */
  validBytes: number;
  /** The seq of the last committed event (skipped lines included). */
  lastSeq: number;
  /** The chain value of the last event read ('' when it carries none or none was read). */
  chainHead: string;
}

/**
 * Removes the chain value from a parsed event (it belongs to the line, not the event) and
 * returns it. `h` is the line's last key, so deleting it only rolls back the object's shape.
 */
export function takeChain(value: unknown): string {
  const event = value as { h?: unknown };
  const head = event.h;
  if (head === undefined) return '';
  delete event.h;
  return typeof head === 'string' ? head : '';
}

const CHUNK_BYTES = 4 * 1024 * 1024;
const NEWLINE = 10;

/**
 * Reads a file in chunks into one reused buffer (fresh 4 MiB buffers per chunk cost a page fault
 * per 4 KiB): each chunk is the bytes carried from the previous one followed by the next read.
 */
class ChunkReader {
  private buffer: Buffer;
  private carried = 0;
  /** Bytes of the previous chunk from here on are carried into the next one. */
  private carryFrom = -1;
  private length = 0;

  constructor(
    private readonly fd: number,
    private readonly size: number,
    /** The file offset of the next read. */
    public position: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, size - position)));
  }

  /** The next chunk (valid until the next call), or undefined at the end of the file. */
  next(): Buffer | undefined {
    if (this.carryFrom >= 0) {
      this.carried = this.length - this.carryFrom;
      this.buffer.copyWithin(0, this.carryFrom, this.length);
      this.carryFrom = -1;
    } else {
      this.carried = 0;
    }
    if (this.position >= this.size) return undefined;
    const want = this.carried + Math.min(CHUNK_BYTES, this.size - this.position);
    if (this.buffer.length < want) {
      const larger = Buffer.allocUnsafe(Math.max(want, this.buffer.length * 2));
      this.buffer.copy(larger, 0, 0, this.carried);
      this.buffer = larger;
    }
    const read = readSync(this.fd, this.buffer, this.carried, want - this.carried, this.position);
    if (read === 0) return undefined;
    this.position += read;
    this.length = this.carried + read;
    return this.buffer.subarray(0, this.length);
  }

  /** Carries the current chunk's bytes from `from` on into the next chunk. */
  carry(from: number): void {
    this.carryFrom = from < this.length ? from : -1;
  }
}

/** Where {@link readJsonlEvents} starts and which events it keeps. */
export interface JsonlReadOptions {
  /** Byte offset of a line start to read from (default 0); the line there holds `startSeq`. */
  startOffset?: number;
  /** The seq of the event at `startOffset` (default 1). */
  startSeq?: number;
  /** Keep only events from this seq on; earlier lines are counted, not parsed (default 1). */
  fromSeq?: number;
}

/** What a {@link scanEvents} run has seen so far; complete once the scan has ended. */
interface ScanState {
  /** The seq the next non-empty line holds. */
  nextSeq: number;
  /** Bytes holding committed events (a torn or unparseable last line is left out). */
  validBytes: number;
  /** The chain value of the last event yielded ('' when it carries none). */
  chainHead: string;
  /** The file's size when the scan began (what it reads up to). */
  size: number;
}

/**
 * The one line-block loop both readers share: the events on the whole lines of a file from
 * `startOffset`, in order. Each chunk is cut after its last newline (the rest is carried into the
 * next one); lines before `fromSeq` are only counted (one event per non-empty line, gapless
 * seqs), later ones are decoded one at a time (a line of ASCII stays a one-byte string, which
 * JSON.parse reads faster than a slice of a chunk holding any other character), parsed and
 * structurally checked. An unparseable line followed by another line throws; as the last line
 * it ends the scan with `validBytes` at its start (a torn write). `types` (when given) shares
 * repeated strings between the events kept (see compactEvent).
 *
 * @throws a {@link SessionCorruptError} naming the file and line.
 */
function* scanEvents(
  path: string,
  fd: number,
  options: JsonlReadOptions,
  state: ScanState,
  types?: Map<string, string>,
): Generator<SessionEvent, void, undefined> {
  const startSeq = options.startSeq ?? 1;
  const fromSeq = Math.max(options.fromSeq ?? 1, startSeq);
  // Lines are counted from the start offset, which holds `startSeq`; `line` names them in errors.
  let line = startSeq - 1;
  let bad: { line: number; start: number; reason: string } | undefined;
  // The file offset of the current chunk's first byte.
  let base = options.startOffset ?? 0;
  state.size = fstatSync(fd).size;
  const chunks = new ChunkReader(fd, state.size, base);
  for (;;) {
    const data = chunks.next();
    if (data === undefined) break;
    const last = data.lastIndexOf(NEWLINE);
    if (last < 0) {
      chunks.carry(0);
      continue;
    }
    chunks.carry(last + 1);
    let start = 0;
    while (start <= last) {
      const newline = data.indexOf(NEWLINE, start);
      line++;
      if (newline === start) {
        start++;
        continue;
      }
      if (bad) throw new SessionCorruptError({ file: path, line: bad.line, reason: bad.reason });
      if (state.nextSeq < fromSeq) {
        state.nextSeq++;
        start = newline + 1;
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(data.toString('utf8', start, newline));
      } catch (error) {
        bad = { line, start: base + start, reason: `not valid JSON (${(error as Error).message})` };
        start = newline + 1;
        continue;
      }
      const problem = structuralProblem(value, state.nextSeq);
      if (problem) throw new SessionCorruptError({ file: path, line, reason: problem });
      state.chainHead = takeChain(value);
      if (types) compactEvent(value as SessionEvent, types);
      state.nextSeq++;
      start = newline + 1;
      yield value as SessionEvent;
    }
    base += last + 1;
    // Whole lines consumed so far (final once the scan ends).
    state.validBytes = base;
  }
  state.validBytes = bad ? bad.start : base;
}

/**
 * Reads a JSONL session file in chunks (never holding the raw text and the parsed events at
 * once), checking each kept event's structure and seq. Lines before `fromSeq` are skipped at the
 * byte level (one event per non-empty line; seqs are gapless). A last line that is cut short or
 * unparseable is reported through `validBytes` (a torn write); any other damage throws.
 *
 * @throws a {@link SessionCorruptError} naming the file and line.
 */
export function readJsonlEvents(path: string, options: JsonlReadOptions = {}): JsonlReadResult {
  const fd = openSync(path, 'r');
  try {
    const state: ScanState = {
      nextSeq: options.startSeq ?? 1,
      validBytes: 0,
      chainHead: '',
      size: 0,
    };
    const events: SessionEvent[] = [];
    for (const event of scanEvents(path, fd, options, state, new Map())) events.push(event);
    if (state.nextSeq === 1) {
      throw new SessionCorruptError({
        file: path,
        line: 1,
        reason: 'no complete session/header: the file is empty or not a Spine session',
      });
    }
    return {
      events,
      size: state.size,
      validBytes: state.validBytes,
      lastSeq: state.nextSeq - 1,
      chainHead: state.chainHead,
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads only the first line of a file (the header), in small reads: never the whole file.
 * Returns undefined when the file has no complete, parseable first line.
 */
export function readFirstLine(path: string, maxBytes = 1024 * 1024): unknown {
  const fd = openSync(path, 'r');
  try {
    const parts: Buffer[] = [];
    let position = 0;
    let step = 16 * 1024;
    while (position < maxBytes) {
      const chunk = Buffer.allocUnsafe(step);
      const read = readSync(fd, chunk, 0, step, position);
      if (read === 0) return undefined;
      const newline = chunk.subarray(0, read).indexOf(NEWLINE);
      if (newline >= 0) {
        parts.push(chunk.subarray(0, newline));
        try {
          return JSON.parse(Buffer.concat(parts).toString('utf8'));
        } catch {
          return undefined;
        }
      }
      parts.push(chunk.subarray(0, read));
      position += read;
      step = Math.min(step * 4, 256 * 1024);
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Which lines {@link readJsonlRange} yields, and where it may start scanning. */
export interface JsonlRangeOptions extends JsonlReadOptions {
  /** Last seq to yield, inclusive (default: the end of the file). */
  toSeq?: number;
  /** Only events of these types. */
  types?: ReadonlySet<string>;
  /** At most this many events. */
  limit?: number;
}

/**
 * Yields the events of a seq range from a JSONL session file, scanning from `startOffset` and
 * skipping earlier lines at the byte level; stops at `toSeq` or `limit` without reading further.
 * A last line cut short (a torn write) is not yielded.
 *
 * @throws a {@link SessionCorruptError} for damaged data inside the range.
 */
export function* readJsonlRange(path: string, options: JsonlRangeOptions): Generator<SessionEvent> {
  const toSeq = options.toSeq ?? Number.POSITIVE_INFINITY;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (limit <= 0 || toSeq < Math.max(options.fromSeq ?? 1, options.startSeq ?? 1)) return;
  const fd = openSync(path, 'r');
  try {
    const state: ScanState = {
      nextSeq: options.startSeq ?? 1,
      validBytes: 0,
      chainHead: '',
      size: 0,
    };
    let yielded = 0;
    for (const event of scanEvents(path, fd, options, state)) {
      if (!options.types || options.types.has(event.type)) {
        yield event;
        if (++yielded >= limit) return;
      }
      if (event.seq >= toSeq) return;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link readJsonlRange} in batches: arrays of consecutive events of `fromSeq..toSeq` (all
 * types), so that an async reader pays one promise round per batch instead of one per event.
 * The arrays are new each time (the caller may keep them).
 *
 * @throws a {@link SessionCorruptError} for damaged data inside the range.
 */
export function* readJsonlBatches(
  path: string,
  options: JsonlRangeOptions,
): Generator<SessionEvent[]> {
  let batch: SessionEvent[] = [];
  for (const event of readJsonlRange(path, { ...options, types: undefined, limit: undefined })) {
    batch.push(event);
    if (batch.length >= BATCH_EVENTS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** What {@link scanJsonlBatches} found, complete once its batches are exhausted. */
export interface JsonlScan {
  /** The file's size when the scan began. */
  size: number;
  /** Bytes of the file consumed so far (whole lines); the end of the committed events at the end. */
  position: number;
  /** The seq of the last committed event (0: none). */
  lastSeq: number;
  /** The chain value of the last event ('' when it carries none). */
  chainHead: string;
}

/**
 * Reads a whole JSONL session file once, in batches of events (as {@link readJsonlBatches}),
 * and reports through `scan` what opening a writer needs: the last seq, the end of the committed
 * events (a torn or unparseable last line is left out, as {@link readJsonlEvents} does) and the
 * chain head, so that no separate pass has to find them.
 *
 * @throws a {@link SessionCorruptError} naming the file and line.
 */
export function* scanJsonlBatches(path: string, scan: JsonlScan): Generator<SessionEvent[]> {
  const fd = openSync(path, 'r');
  try {
    const state: ScanState = { nextSeq: 1, validBytes: 0, chainHead: '', size: 0 };
    let batch: SessionEvent[] = [];
    scan.size = fstatSync(fd).size;
    for (const event of scanEvents(path, fd, {}, state)) {
      batch.push(event);
      if (batch.length >= BATCH_EVENTS) {
        scan.lastSeq = state.nextSeq - 1;
        scan.position = state.validBytes;
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    scan.size = state.size;
    scan.position = state.validBytes;
    scan.lastSeq = state.nextSeq - 1;
    scan.chainHead = state.chainHead;
  } finally {
    closeSync(fd);
  }
}
