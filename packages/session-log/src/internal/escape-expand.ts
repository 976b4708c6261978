// Escaping a string's UTF-8 in place, as `JSON.stringify` would: the WebAssembly bodies of
// `letter`, `extra` and `expand` (assembled into one module with the scan in escape-scan.ts) and
// their plain JS fallbacks. A caller writes the raw UTF-8 of a well-formed string at
// `start..end`, asks `extra(start, end)` how many bytes its escapes add, makes room for them,
// and calls `expand(start, end, extra)`, which moves the bytes back to front (clean 16-byte
// blocks at once) and writes `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx` in place.
import {
  BLOCK,
  BR,
  BR_IF,
  CALL,
  ELSE,
  EMPTY,
  END,
  I8X16_BITMASK,
  I8X16_EQ,
  I8X16_LT_U,
  I8X16_SUB,
  I32,
  I32_ADD,
  I32_AND,
  I32_CLZ,
  I32_EQ,
  I32_EQZ,
  I32_GE_U,
  I32_GT_U,
  I32_LOAD8_U,
  I32_LT_U,
  I32_OR,
  I32_POPCNT,
  I32_SHL,
  I32_SHR_U,
  I32_STORE8,
  I32_SUB,
  IF,
  i32,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  LOOP,
  SELECT,
  SIMD,
  splat,
  V128,
  V128_ANDNOT,
  V128_LOAD,
  V128_OR,
  V128_STORE,
} from './wasm-ops.js';

/** Function indices in the module: 0 is the scan (`dirty`). */
export const LETTER_FUNCTION = 1;

/** `letter(byte)`: the letter of a two-character escape (`n` for a newline…), 0 for `\u00xx`. */
export const letterBody = [
  0, // no locals
  ...[...i32(0x6e), ...i32(0x74), ...i32(0x72), ...i32(0x62), ...i32(0x66), ...i32(0)],
  ...[LOCAL_GET, 0, ...i32(12), I32_EQ, SELECT],
  ...[LOCAL_GET, 0, ...i32(8), I32_EQ, SELECT],
  ...[LOCAL_GET, 0, ...i32(13), I32_EQ, SELECT],
  ...[LOCAL_GET, 0, ...i32(9), I32_EQ, SELECT],
  ...[LOCAL_GET, 0, ...i32(10), I32_EQ, SELECT],
  END,
];

/** The dirty lanes of the sixteen bytes in local `v`: below 0x20, `"` or `\`. */
const dirtyLanes = (v: number): number[] => [
  ...[LOCAL_GET, v, ...splat(0x20), SIMD, I8X16_LT_U],
  ...[LOCAL_GET, v, ...splat(0x22), SIMD, I8X16_EQ, SIMD, V128_OR],
  ...[LOCAL_GET, v, ...splat(0x5c), SIMD, I8X16_EQ, SIMD, V128_OR],
];

// extra(p, e): locals 2 = v, 3 = control lanes (v128); 4 = n, 5 = b (i32).
const [P, E, V, LT, N, B] = [0, 1, 2, 3, 4, 5];
/** `extra(start, end)`: the bytes the escapes of `start..end` add (1 for `\n`, 5 for `\u00xx`). */
export const extraBody = [
  ...[2, 2, V128, 2, I32],
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  ...[LOCAL_GET, P, ...i32(16), I32_ADD, LOCAL_GET, E, I32_GT_U, BR_IF, 1],
  ...[LOCAL_GET, P, SIMD, V128_LOAD, 0, 0, LOCAL_SET, V],
  ...[LOCAL_GET, V, ...splat(0x20), SIMD, I8X16_LT_U, LOCAL_SET, LT],
  // every dirty byte adds one…
  ...dirtyLanes(V),
  ...[SIMD, I8X16_BITMASK, I32_POPCNT, LOCAL_GET, N, I32_ADD, LOCAL_SET, N],
  // …and a control character other than \b \t \n \f \r (8–13 but 11) four more.
  ...[LOCAL_GET, LT],
  ...[LOCAL_GET, V, ...splat(8), SIMD, I8X16_SUB, ...splat(6), SIMD, I8X16_LT_U],
  ...[LOCAL_GET, V, ...splat(11), SIMD, I8X16_EQ, SIMD, V128_ANDNOT],
  ...[SIMD, V128_ANDNOT, SIMD, I8X16_BITMASK, I32_POPCNT, ...i32(2), I32_SHL],
  ...[LOCAL_GET, N, I32_ADD, LOCAL_SET, N],
  ...[LOCAL_GET, P, ...i32(16), I32_ADD, LOCAL_SET, P, BR, 0, END, END],
  // the last bytes, one at a time
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  ...[LOCAL_GET, P, LOCAL_GET, E, I32_GE_U, BR_IF, 1],
  ...[LOCAL_GET, P, I32_LOAD8_U, 0, 0, LOCAL_TEE, B, ...i32(0x20), I32_LT_U],
  ...[IF, I32, ...i32(1), ...i32(5), LOCAL_GET, B, CALL, LETTER_FUNCTION, SELECT],
  ...[ELSE, LOCAL_GET, B, ...i32(0x22), I32_EQ, LOCAL_GET, B, ...i32(0x5c), I32_EQ, I32_OR],
  ...[END, LOCAL_GET, N, I32_ADD, LOCAL_SET, N],
  ...[LOCAL_GET, P, ...i32(1), I32_ADD, LOCAL_SET, P, BR, 0, END, END],
  ...[LOCAL_GET, N, END],
];

// expand(p, e, x): locals 3 = r, 4 = w, 5 = b, 6 = c, 7 = m (i32); 8 = v (v128).
const [XP, XE, XX, R, W, XB, C, M, XV] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
/** Stores byte constant `value` at `w + offset`. */
const storeAt = (offset: number, value: number[]): number[] => [
  ...[LOCAL_GET, W, ...value, I32_STORE8, 0, offset],
];
/** `w -= count`, then a backslash at `w`. */
const backslashAt = (count: number): number[] => [
  ...[LOCAL_GET, W, ...i32(count), I32_SUB, LOCAL_SET, W],
  ...storeAt(0, i32(0x5c)),
];
/** `expand(start, end, extra)`: escapes `start..end` in place, ending at `end + extra`. */
export const expandBody = [
  ...[2, 5, I32, 1, V128],
  ...[LOCAL_GET, XE, LOCAL_SET, R, LOCAL_GET, XE, LOCAL_GET, XX, I32_ADD, LOCAL_SET, W],
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  // done when every escape is in place (the bytes before are where they were)
  ...[LOCAL_GET, W, LOCAL_GET, R, I32_EQ, BR_IF, 1],
  // sixteen clean bytes before r move at once
  ...[LOCAL_GET, R, LOCAL_GET, XP, ...i32(16), I32_ADD, I32_GE_U, IF, EMPTY],
  ...[LOCAL_GET, R, ...i32(16), I32_SUB, SIMD, V128_LOAD, 0, 0, LOCAL_SET, XV],
  ...dirtyLanes(XV),
  ...[SIMD, I8X16_BITMASK, LOCAL_TEE, M, I32_EQZ, IF, EMPTY],
  ...[LOCAL_GET, W, ...i32(16), I32_SUB, LOCAL_GET, XV, SIMD, V128_STORE, 0, 0],
  ...[LOCAL_GET, R, ...i32(16), I32_SUB, LOCAL_SET, R],
  ...[LOCAL_GET, W, ...i32(16), I32_SUB, LOCAL_SET, W, BR, 2, END],
  // otherwise the clean bytes above the last dirty one (the mask's leading zeros past 16) move
  // one by one, without a scan each
  ...[LOCAL_GET, M, I32_CLZ, ...i32(16), I32_SUB, LOCAL_SET, M],
  ...[BLOCK, EMPTY, LOOP, EMPTY, LOCAL_GET, M, I32_EQZ, BR_IF, 1],
  ...[LOCAL_GET, W, ...i32(1), I32_SUB, LOCAL_TEE, W],
  ...[LOCAL_GET, R, ...i32(1), I32_SUB, LOCAL_TEE, R, I32_LOAD8_U, 0, 0, I32_STORE8, 0, 0],
  ...[LOCAL_GET, M, ...i32(1), I32_SUB, LOCAL_SET, M, BR, 0, END, END, END],
  // then the dirty byte (or one byte of the last fifteen)
  ...[LOCAL_GET, R, ...i32(1), I32_SUB, LOCAL_TEE, R, I32_LOAD8_U, 0, 0, LOCAL_SET, XB],
  ...[LOCAL_GET, XB, ...i32(0x20), I32_LT_U, IF, EMPTY],
  ...[LOCAL_GET, XB, CALL, LETTER_FUNCTION, LOCAL_TEE, C, IF, EMPTY],
  ...backslashAt(2),
  ...[LOCAL_GET, W, LOCAL_GET, C, I32_STORE8, 0, 1],
  ...[ELSE, ...backslashAt(6), ...storeAt(1, i32(0x75)), ...storeAt(2, i32(0x30))],
  ...storeAt(3, i32(0x30)),
  ...storeAt(4, [LOCAL_GET, XB, ...i32(4), I32_SHR_U, ...i32(0x30), I32_ADD]),
  ...[LOCAL_GET, W, ...i32(0x57), ...i32(0x30), LOCAL_GET, XB, ...i32(15), I32_AND, LOCAL_TEE, C],
  ...[...i32(9), I32_GT_U, SELECT, LOCAL_GET, C, I32_ADD, I32_STORE8, 0, 5, END],
  ...[ELSE, LOCAL_GET, XB, ...i32(0x22), I32_EQ, LOCAL_GET, XB, ...i32(0x5c), I32_EQ, I32_OR],
  ...[IF, EMPTY, ...backslashAt(2), LOCAL_GET, W, LOCAL_GET, XB, I32_STORE8, 0, 1],
  ...[ELSE, LOCAL_GET, W, ...i32(1), I32_SUB, LOCAL_TEE, W, LOCAL_GET, XB, I32_STORE8, 0, 0],
  ...[END, END, BR, 0, END, END],
  ...[LOCAL_GET, XE, LOCAL_GET, XX, I32_ADD, END],
];

const SHORT_LETTERS: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };

/** The bytes the escapes of `bytes[start..end)` add, in JS. */
export function extraInJs(bytes: Uint8Array, start: number, end: number): number {
  let extra = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte < 0x20) extra += SHORT_LETTERS[byte] ? 1 : 5;
    else if (byte === 0x22 || byte === 0x5c) extra += 1;
  }
  return extra;
}

const HEX = '0123456789abcdef';

/** Escapes `bytes[start..end)` in place, in JS; returns the new end (`end + extra`). */
export function expandInJs(bytes: Uint8Array, start: number, end: number, extra: number): number {
  let read = end;
  let write = end + extra;
  while (write > read && read > start) {
    const byte = bytes[--read]!;
    if (byte >= 0x20 && byte !== 0x22 && byte !== 0x5c) bytes[--write] = byte;
    else if (byte >= 0x20 || SHORT_LETTERS[byte]) {
      bytes[--write] = byte >= 0x20 ? byte : SHORT_LETTERS[byte]!;
      bytes[--write] = 0x5c;
    } else {
      write -= 6;
      bytes.set(
        [0x5c, 0x75, 0x30, 0x30, HEX.charCodeAt(byte >> 4), HEX.charCodeAt(byte & 15)],
        write,
      );
    }
  }
  return end + extra;
}
