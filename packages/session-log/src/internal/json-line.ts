import { createScanArena, type ScanArena } from './escape-scan.js';
import { APPEND_OP } from './event-check.js';

/** The shared arena lines are encoded into: 1 MiB; a longer line is left to JSON.stringify. */
const ARENA_PAGES = 16;
const MAX_DEPTH = 64;
/** Escaped object keys (`"key":`) are cached up to this many distinct keys. */
const MAX_CACHED_KEYS = 4096;
/** Strings up to this long are copied by a JS loop; longer ones by a native copy and the scan. */
const SHORT = 32;

/**
 * The UTF-8 of `text` as a plain Uint8Array. Cached fragments are all of this one type (never a
 * Buffer, a subclass) so the loops copying them stay monomorphic.
 */
function utf8Bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** Thrown internally when the line outgrows the arena. */
const FULL = Symbol('arena full');

/** In a for-in loop V8 turns `hasOwnProperty.call` into a map check; `Object.hasOwn` is 4× slower. */
const ownProperty = Object.prototype.hasOwnProperty;

/**
 * Writes JSON into one byte arena. State lives in instance fields rather than module variables:
 * V8 keeps those in registers and inline caches, which matters at a few bytes per operation.
 */
class LineEncoder {
  readonly bytes: Buffer;
  readonly extra: ScanArena['extra'];
  readonly expand: ScanArena['expand'];
  readonly keys = new Map<string, Uint8Array>();
  /** `,"type":"…"` by event type. */
  readonly types = new Map<string, Uint8Array>();
  /** `,"at":"…"` for the last timestamp seen (appends within a millisecond share it). */
  lastAt = '';
  lastAtBytes: Uint8Array = new Uint8Array(0);
  position = 0;
  busy = false;

  constructor() {
    const arena = createScanArena(ARENA_PAGES);
    this.bytes = arena.bytes;
    this.extra = arena.extra;
    this.expand = arena.expand;
  }

  room(count: number): void {
    if (this.position + count > this.bytes.length) throw FULL;
  }

  /** Writes text known to be ASCII (numbers, literals). */
  ascii(text: string): void {
    this.room(text.length);
    const bytes = this.bytes;
    let at = this.position;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.position = at;
  }

  /**
   * Writes a short `text` between quotes (and room for one more byte) when it is printable ASCII
   * without `"` or a backslash; returns false, leaving the position unchanged, otherwise.
   */
  plainShort(text: string): boolean {
    this.room(text.length + 3);
    const bytes = this.bytes;
    const start = this.position;
    let at = start + 1;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x20 || code === 0x22 || code === 0x5c || code > 0x7e) return false;
      bytes[at++] = code;
    }
    bytes[start] = 0x22;
    bytes[at] = 0x22;
    this.position = at + 1;
    return true;
  }

  /**
   * Writes `text` as a JSON string: its raw UTF-8 between quotes, escaped in place when it needs
   * escapes (one native copy and two SIMD passes, no escaped JS string).
   */
  string(text: string): void {
    if (text.length <= SHORT && this.plainShort(text)) return;
    this.room(text.length * 3 + 2);
    const bytes = this.bytes;
    const start = this.position;
    bytes[start] = 0x22;
    const from = start + 1;
    const written = bytes.write(text, from);
    // Only a string with non-ASCII characters can hold a lone surrogate, which JSON escapes as
    // `\udxxx` (Buffer writes U+FFFD): such a string is left to JSON.stringify.
    if (
      written === text.length ||
      (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    ) {
      const extra = this.extra(from, from + written);
      let end = from + written;
      if (extra > 0) {
        this.position = end;
        this.room(extra + 1);
        end = this.expand(from, end, extra);
      }
      bytes[end] = 0x22;
      this.position = end + 1;
      return;
    }
    const escaped = JSON.stringify(text);
    this.room(escaped.length * 3);
    this.position = start + bytes.write(escaped, start);
  }

  /** Writes `"name":`, straight from the characters when they need no escapes. */
  key(name: string): void {
    if (name.length <= SHORT && this.plainShort(name)) {
      this.bytes[this.position++] = 0x3a;
      return;
    }
    let encoded = this.keys.get(name);
    if (encoded === undefined) {
      encoded = utf8Bytes(`${JSON.stringify(name)}:`);
      if (this.keys.size < MAX_CACHED_KEYS) this.keys.set(name, encoded);
    }
    this.room(encoded.length);
    this.bytes.set(encoded, this.position);
    this.position += encoded.length;
  }

  /** Anything unusual (class instances, `toJSON`, deep nesting) is left to JSON.stringify. */
  stringified(value: unknown): void {
    const text = JSON.stringify(value) ?? 'null';
    this.room(text.length * 3);
    this.position += this.bytes.write(text, this.position);
  }

  /** Writes `value` exactly as `JSON.stringify` would. */
  value(value: unknown, depth: number): void {
    const kind = typeof value;
    if (kind === 'string') this.string(value as string);
    else if (kind === 'number') {
      this.ascii(Number.isFinite(value) ? String(value) : 'null');
    } else if (kind === 'boolean') this.ascii(value ? 'true' : 'false');
    else if (value === null) this.ascii('null');
    else if (kind === 'object' && depth < MAX_DEPTH) {
      if (Array.isArray(value)) this.array(value, depth);
      else if (isPlainObject(value as object)) this.object(value as Record<string, unknown>, depth);
      else this.stringified(value);
    } else this.stringified(value);
  }

  /**
   * Writes a session event. One whose own keys are the event fields in the order `Session`
   * builds them (every event it appends) is written field by field; any other goes the generic way.
   */
  event(value: unknown): void {
    const event = value as Record<string, unknown>;
    let rank = value !== null && typeof value === 'object' && !Array.isArray(value) ? 0 : -1;
    if (rank === 0)
      for (const name in event) {
        const next = eventKeyRank(name);
        if (next <= rank || !ownProperty.call(event, name)) {
          rank = -1;
          break;
        }
        rank = next;
      }
    if (rank <= 0 || !isPlainObject(event)) {
      this.value(event, 0);
      return;
    }
    let comma: boolean;
    const { seq, type, at } = event;
    if (typeof seq === 'number' && typeof type === 'string' && typeof at === 'string') {
      // The envelope's repeated parts (`,"type":…`, `,"at":…`) are copied from cached bytes.
      this.raw(SEQ_OPEN);
      this.ascii(Number.isFinite(seq) ? String(seq) : 'null');
      let typeBytes = this.types.get(type);
      if (typeBytes === undefined) {
        if (this.types.size >= MAX_CACHED_KEYS) this.types.clear();
        typeBytes = utf8Bytes(`,"type":${JSON.stringify(type)}`);
        this.types.set(type, typeBytes);
      }
      this.raw(typeBytes);
      if (at !== this.lastAt) {
        this.lastAt = at;
        this.lastAtBytes = utf8Bytes(`,"at":${JSON.stringify(at)}`);
      }
      this.raw(this.lastAtBytes);
      comma = true;
    } else {
      this.room(1);
      this.bytes[this.position++] = 0x7b;
      comma = this.member(EVENT_KEYS[0]!, seq, false);
      comma = this.member(EVENT_KEYS[1]!, type, comma);
      comma = this.member(EVENT_KEYS[2]!, at, comma);
    }
    comma = this.member(EVENT_KEYS[3]!, event.body, comma);
    comma = this.member(EVENT_KEYS[4]!, event.turn, comma);
    comma = this.member(EVENT_KEYS[5]!, event.step, comma);
    if (event.surfaceOp === APPEND_OP) this.raw(SURFACE_APPEND);
    else comma = this.member(EVENT_KEYS[6]!, event.surfaceOp, comma);
    this.member(EVENT_KEYS[7]!, event.sourceEventSeqs, comma);
    this.room(1);
    this.bytes[this.position++] = 0x7d;
  }

  /** Copies bytes as they are. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    if (bytes.length > SHORT) {
      this.bytes.set(bytes, this.position);
      this.position += bytes.length;
      return;
    }
    const target = this.bytes;
    let at = this.position;
    for (let i = 0; i < bytes.length; i++) target[at++] = bytes[i]!;
    this.position = at;
  }

  /** Writes `,"key":value` (no comma first) unless JSON leaves the value out; says whether it wrote. */
  member(key: Uint8Array, item: unknown, comma: boolean): boolean {
    const kind = typeof item;
    if (kind === 'undefined' || kind === 'function' || kind === 'symbol') return comma;
    this.room(key.length + 1);
    const bytes = this.bytes;
    let at = this.position;
    if (comma) bytes[at++] = 0x2c;
    for (let i = 0; i < key.length; i++) bytes[at++] = key[i]!;
    this.position = at;
    this.value(item, 1);
    return true;
  }

  array(items: readonly unknown[], depth: number): void {
    this.room(2 + items.length);
    this.bytes[this.position++] = 0x5b;
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.bytes[this.position++] = 0x2c;
      const item = items[i];
      const kind = typeof item;
      if (kind === 'undefined' || kind === 'function' || kind === 'symbol') this.ascii('null');
      else this.value(item, depth + 1);
    }
    this.bytes[this.position++] = 0x5d;
  }

  object(object: Record<string, unknown>, depth: number): void {
    this.room(1);
    this.bytes[this.position++] = 0x7b;
    let first = true;
    for (const name in object) {
      if (!ownProperty.call(object, name)) continue;
      const item = object[name];
      const kind = typeof item;
      if (kind === 'undefined' || kind === 'function' || kind === 'symbol') continue;
      if (!first) {
        this.room(1);
        this.bytes[this.position++] = 0x2c;
      }
      first = false;
      this.key(name);
      this.value(item, depth + 1);
    }
    this.room(1);
    this.bytes[this.position++] = 0x7d;
  }
}

const EVENT_KEYS = [
  'seq',
  'type',
  'at',
  'body',
  'turn',
  'step',
  'surfaceOp',
  'sourceEventSeqs',
].map((name) => utf8Bytes(`"${name}":`));

const SEQ_OPEN = utf8Bytes('{"seq":');
const SURFACE_APPEND = utf8Bytes(',"surfaceOp":{"op":"append"}');

/** Ranks (from 1) of a session event's keys in the order `Session` builds them; 0 for others. */
function eventKeyRank(name: string): number {
  switch (name) {
    case 'seq':
      return 1;
    case 'type':
      return 2;
    case 'at':
      return 3;
    case 'body':
      return 4;
    case 'turn':
      return 5;
    case 'step':
      return 6;
    case 'surfaceOp':
      return 7;
    case 'sourceEventSeqs':
      return 8;
    default:
      return 0;
  }
}

/** A plain object without `toJSON`, which JSON.stringify would call. */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

let encoder: LineEncoder | undefined;

/**
 * Encodes `value` as one JSONL line (its `JSON.stringify` text and a newline), byte for byte what
 * `JSON.stringify` gives, in one walk that copies strings instead of escaping them character by
 * character. The line goes into the shared arena ({@link jsonLineArena}) at `start`, leaving the
 * bytes before it alone, and the end offset is returned; -1 means the line does not fit between
 * `start` and the end of the arena (nothing before `start` is touched either way).
 *
 * @throws whatever `JSON.stringify` throws for the value (a cycle, a BigInt), and an Error when
 *   called while an encode is running (from a `toJSON`), which would clobber the arena.
 */
export function encodeJsonLine(value: unknown, start: number): number {
  encoder ??= new LineEncoder();
  if (encoder.busy) throw new Error('JSONL encoding is not re-entrant: do not append from toJSON');
  encoder.busy = true;
  encoder.position = start;
  try {
    encoder.event(value);
    encoder.room(1);
    encoder.bytes[encoder.position++] = 0x0a;
    return encoder.position;
  } catch (error) {
    if (error === FULL) return -1;
    throw error;
  } finally {
    encoder.busy = false;
  }
}

/** The shared arena {@link encodeJsonLine} writes into (1 MiB, WebAssembly memory when available). */
export function jsonLineArena(): Buffer {
  encoder ??= new LineEncoder();
  return encoder.bytes;
}
