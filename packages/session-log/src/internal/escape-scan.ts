// Finds whether UTF-8 bytes hold a character JSON must escape, 16 bytes at a time, and escapes
// them in place.
//
// Why WebAssembly: serialising a 1 KB string costs about as much as a write syscall, and
// `JSON.stringify`, a RegExp or a JS loop all read it one character at a time. Copying the string's
// UTF-8 into a buffer is a native bulk copy; this SIMD scan then checks it in tens of nanoseconds,
// so a string that needs no escapes is emitted as its raw bytes between quotes. Real text (code,
// tool output) nearly always holds a newline or a quote: `extra` and `expand` (escape-expand.ts)
// escape its bytes in place, so the string is copied once and never re-serialised to a JS string.
// The module is assembled below from its opcodes, with plain JS versions as the fallback.
import { expandBody, expandInJs, extraBody, extraInJs, letterBody } from './escape-expand.js';
import {
  BLOCK,
  BR,
  BR_IF,
  EMPTY,
  END,
  I8X16_EQ,
  I8X16_LT_U,
  I32,
  I32_ADD,
  I32_EQ,
  I32_GE_U,
  I32_GT_U,
  I32_LOAD8_U,
  I32_LT_U,
  I32_OR,
  IF,
  i32,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  LOOP,
  leb,
  RETURN,
  SIMD,
  splat,
  V128,
  V128_ANY_TRUE,
  V128_LOAD,
  V128_OR,
} from './wasm-ops.js';

/** `dirty(start, end)`: 1 when a byte in `start..end` is below 0x20, `"` or `\`, else 0. */
type DirtyScan = (start: number, end: number) => number;

// Locals: 0 = position, 1 = end (parameters), 2 = sixteen bytes, 3 = one byte.
const [P, E, V, B] = [0, 1, 2, 3];
const dirtyBody = [
  ...[2, 1, V128, 1, I32], // locals: one v128, one i32
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  // while (position + 16 <= end)
  ...[LOCAL_GET, P, ...i32(16), I32_ADD, LOCAL_GET, E, I32_GT_U, BR_IF, 1],
  ...[LOCAL_GET, P, SIMD, V128_LOAD, 0, 0, LOCAL_TEE, V],
  ...[...splat(0x20), SIMD, I8X16_LT_U],
  ...[LOCAL_GET, V, ...splat(0x22), SIMD, I8X16_EQ, SIMD, V128_OR],
  ...[LOCAL_GET, V, ...splat(0x5c), SIMD, I8X16_EQ, SIMD, V128_OR],
  ...[SIMD, V128_ANY_TRUE, IF, EMPTY, ...i32(1), RETURN, END],
  ...[LOCAL_GET, P, ...i32(16), I32_ADD, LOCAL_SET, P, BR, 0, END, END],
  // the last bytes, one at a time
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  ...[LOCAL_GET, P, LOCAL_GET, E, I32_GE_U, BR_IF, 1],
  ...[LOCAL_GET, P, I32_LOAD8_U, 0, 0, LOCAL_TEE, B, ...i32(0x20), I32_LT_U],
  ...[LOCAL_GET, B, ...i32(0x22), I32_EQ, I32_OR, LOCAL_GET, B, ...i32(0x5c), I32_EQ, I32_OR],
  ...[IF, EMPTY, ...i32(1), RETURN, END],
  ...[LOCAL_GET, P, ...i32(1), I32_ADD, LOCAL_SET, P, BR, 0, END, END],
  ...[...i32(0), END],
];

const ascii = (text: string): number[] => [text.length, ...Buffer.from(text, 'latin1')];
const section = (id: number, content: number[]): number[] => [
  id,
  ...leb(content.length),
  ...content,
];
const code = (body: number[]): number[] => [...leb(body.length), ...body];

const MODULE_BYTES = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  // types: 0 = (i32, i32) -> i32, 1 = (i32) -> i32, 2 = (i32, i32, i32) -> i32
  ...section(1, [
    3,
    0x60,
    2,
    I32,
    I32,
    1,
    I32,
    0x60,
    1,
    I32,
    1,
    I32,
    0x60,
    3,
    I32,
    I32,
    I32,
    1,
    I32,
  ]),
  ...section(2, [1, ...ascii('env'), ...ascii('memory'), 0x02, 0x00, 1]), // import memory, min 1 page
  ...section(3, [4, 0, 1, 0, 2]), // dirty, letter, extra, expand
  ...section(7, [
    3,
    ...[...ascii('dirty'), 0x00, 0],
    ...[...ascii('extra'), 0x00, 2],
    ...[...ascii('expand'), 0x00, 3],
  ]),
  ...section(10, [
    4,
    ...code(dirtyBody),
    ...code(letterBody),
    ...code(extraBody),
    ...code(expandBody),
  ]),
]);

/** The same check in plain JS, used where WebAssembly SIMD is unavailable. */
function dirtyInJs(bytes: Uint8Array, start: number, end: number): number {
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte < 0x20 || byte === 0x22 || byte === 0x5c) return 1;
  }
  return 0;
}

/** The part of the WebAssembly API used here (the repo's TypeScript lib has no DOM/wasm types). */
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** A byte arena with the escape scan bound to it. */
export interface ScanArena {
  /** The arena's bytes (backed by WebAssembly memory when available). */
  bytes: Buffer;
  /** 1 when `bytes[start..end)` holds a byte below 0x20, `"` or `\`; 0 when it needs no escapes. */
  dirty: DirtyScan;
  /** The bytes escaping `bytes[start..end)` as JSON adds (0 when it needs none). */
  extra: (start: number, end: number) => number;
  /**
   * Escapes the UTF-8 of a well-formed string at `bytes[start..end)` in place as `JSON.stringify`
   * does (without the quotes), given its `extra` (that many bytes of room after `end`); returns
   * the new end.
   */
  expand: (start: number, end: number, extra: number) => number;
}

/**
 * Creates an arena of `pages` × 64 KiB whose `dirty` scan runs in WebAssembly SIMD, or in JS when
 * this runtime cannot compile the module (or `wasm` is false, for tests).
 */
export function createScanArena(pages: number, options: { wasm?: boolean } = {}): ScanArena {
  try {
    if (options.wasm === false) throw new Error('WebAssembly not wanted');
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const memory = new wasm.Memory({ initial: pages, maximum: pages });
    const instance = new wasm.Instance(new wasm.Module(MODULE_BYTES), { env: { memory } });
    return {
      bytes: Buffer.from(memory.buffer),
      dirty: instance.exports.dirty as DirtyScan,
      extra: instance.exports.extra as ScanArena['extra'],
      expand: instance.exports.expand as ScanArena['expand'],
    };
  } catch {
    const bytes = Buffer.allocUnsafe(pages * 65536);
    return {
      bytes,
      dirty: (start, end) => dirtyInJs(bytes, start, end),
      extra: (start, end) => extraInJs(bytes, start, end),
      expand: (start, end, extra) => expandInJs(bytes, start, end, extra),
    };
  }
}
