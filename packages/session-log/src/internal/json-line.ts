import { createScanArena, type ScanArena } from './escape-scan.js';

/** The shared arena one line is encoded into: 1 MiB; longer lines use JSON.stringify. */
const ARENA_PAGES = 16;
const MAX_DEPTH = 64;
/** Escaped object keys (`"key":`) are cached up to this many distinct keys. */
const MAX_CACHED_KEYS = 4096;

let arena: ScanArena | undefined;
/** True while a line is being encoded into the arena (a re-entrant call takes the string path). */
let busy = false;
let position = 0;
let limit = 0;
const keys = new Map<string, Uint8Array>();
/** Strings up to this long are copied by a JS loop; longer ones by a native copy and the scan. */
const SHORT = 32;

/** Thrown internally when the line outgrows the arena. */
const FULL = Symbol('arena full');

function room(bytes: number): void {
  if (position + bytes > limit) throw FULL;
}

/** Writes text known to be ASCII (numbers, literals). */
function writeAscii(text: string): void {
  room(text.length);
  const bytes = arena!.bytes;
  for (let i = 0; i < text.length; i++) bytes[position++] = text.charCodeAt(i);
}

/** Writes `text` as a JSON string: its raw UTF-8 between quotes unless it needs escapes. */
function writeString(text: string): void {
  const { bytes, dirty } = arena!;
  room(text.length * 3 + 2);
  const start = position;
  bytes[start] = 0x22;
  if (text.length <= SHORT) {
    let at = start + 1;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x20 || code === 0x22 || code === 0x5c || code > 0x7e) {
        at = -1;
        break;
      }
      bytes[at++] = code;
    }
    if (at >= 0) {
      bytes[at] = 0x22;
      position = at + 1;
      return;
    }
  } else {
    const written = bytes.write(text, start + 1);
    // Only a string with non-ASCII characters can hold a lone surrogate, which JSON escapes.
    const wellFormed =
      written === text.length || (text as unknown as { isWellFormed(): boolean }).isWellFormed();
    if (wellFormed && dirty(start + 1, start + 1 + written) === 0) {
      bytes[start + 1 + written] = 0x22;
      position = start + written + 2;
      return;
    }
  }
  const escaped = JSON.stringify(text);
  room(escaped.length * 3);
  position = start + bytes.write(escaped, start);
}

function writeKey(key: string): void {
  let encoded = keys.get(key);
  if (encoded === undefined) {
    encoded = Buffer.from(`${JSON.stringify(key)}:`, 'utf8');
    if (keys.size < MAX_CACHED_KEYS) keys.set(key, encoded);
  }
  room(encoded.length);
  const bytes = arena!.bytes;
  if (encoded.length > SHORT) {
    bytes.set(encoded, position);
    position += encoded.length;
  } else for (let i = 0; i < encoded.length; i++) bytes[position++] = encoded[i]!;
}

/** Anything unusual (class instances, `toJSON`, deep nesting) is left to JSON.stringify. */
function writeStringified(value: unknown): void {
  const text = JSON.stringify(value) ?? 'null';
  room(text.length * 3);
  position += arena!.bytes.write(text, position);
}

/** Writes `value` exactly as `JSON.stringify` would. */
function writeValue(value: unknown, depth: number): void {
  const kind = typeof value;
  if (kind === 'string') writeString(value as string);
  else if (kind === 'number') {
    writeAscii(Number.isFinite(value) ? String(value) : 'null');
  } else if (kind === 'boolean') writeAscii(value ? 'true' : 'false');
  else if (value === null) writeAscii('null');
  else if (kind === 'object' && depth < MAX_DEPTH) {
    if (Array.isArray(value)) writeArray(value, depth);
    else if (isPlainObject(value as object)) writeObject(value as Record<string, unknown>, depth);
    else writeStringified(value);
  } else writeStringified(value);
}

/** A plain object without `toJSON`, which JSON.stringify would call. */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

function writeArray(items: readonly unknown[], depth: number): void {
  room(2 + items.length);
  const bytes = arena!.bytes;
  bytes[position++] = 0x5b;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) bytes[position++] = 0x2c;
    const item = items[i];
    const kind = typeof item;
    if (kind === 'undefined' || kind === 'function' || kind === 'symbol') writeAscii('null');
    else writeValue(item, depth + 1);
  }
  bytes[position++] = 0x5d;
}

function writeObject(object: Record<string, unknown>, depth: number): void {
  room(1);
  const bytes = arena!.bytes;
  bytes[position++] = 0x7b;
  let first = true;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const item = object[key];
    const kind = typeof item;
    if (kind === 'undefined' || kind === 'function' || kind === 'symbol') continue;
    if (!first) {
      room(1);
      bytes[position++] = 0x2c;
    }
    first = false;
    writeKey(key);
    writeValue(item, depth + 1);
  }
  room(1);
  bytes[position++] = 0x7d;
}

/**
 * Encodes `value` as one JSONL line (its `JSON.stringify` text and a newline), byte for byte what
 * `JSON.stringify` gives, in one walk that copies strings instead of escaping them character by
 * character. Returns the line's length in bytes; the line is the start of {@link encodedLineBytes},
 * valid only until the next call, so copy or write it at once. Returns -1 when the caller should
 * use `JSON.stringify` instead: a line larger than the arena, or a re-entrant call (from a `toJSON`
 * during an encode).
 *
 * @throws whatever `JSON.stringify` throws for the value (a cycle, a BigInt).
 */
export function encodeJsonLine(value: unknown): number {
  if (busy) return -1;
  arena ??= createScanArena(ARENA_PAGES);
  busy = true;
  position = 0;
  limit = arena.bytes.length;
  try {
    writeValue(value, 0);
    room(1);
    arena.bytes[position++] = 0x0a;
    return position;
  } catch (error) {
    if (error === FULL) return -1;
    throw error;
  } finally {
    busy = false;
  }
}

/** The arena holding the line last encoded by {@link encodeJsonLine}. */
export function encodedLineBytes(): Buffer {
  arena ??= createScanArena(ARENA_PAGES);
  return arena.bytes;
}
