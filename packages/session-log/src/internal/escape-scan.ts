// Finds whether UTF-8 bytes hold a character JSON must escape, 16 bytes at a time.
//
// Why WebAssembly: serialising a 1 KB string costs about as much as a write syscall, and
// `JSON.stringify`, a RegExp or a JS loop all read it one character at a time. Copying the string's
// UTF-8 into a buffer is a native bulk copy; this SIMD scan then checks it in tens of nanoseconds,
// so a string that needs no escapes (nearly all of them) is emitted as its raw bytes between
// quotes. The module is assembled below from its opcodes, with a plain JS scan as the fallback.

/** `dirty(start, end)`: 1 when a byte in `start..end` is below 0x20, `"` or `\`, else 0. */
type DirtyScan = (start: number, end: number) => number;

const I32 = 0x7f;
const V128 = 0x7b;
const EMPTY = 0x40;
const [BLOCK, LOOP, IF, END, BR, BR_IF, RETURN] = [0x02, 0x03, 0x04, 0x0b, 0x0c, 0x0d, 0x0f];
const [LOCAL_GET, LOCAL_SET, LOCAL_TEE, I32_CONST] = [0x20, 0x21, 0x22, 0x41];
const [I32_LOAD8_U, I32_EQ, I32_LT_U, I32_GT_U, I32_GE_U, I32_ADD, I32_OR] = [
  0x2d, 0x46, 0x49, 0x4b, 0x4f, 0x6a, 0x72,
];
const SIMD = 0xfd;
const [V128_LOAD, I8X16_SPLAT, I8X16_EQ, I8X16_LT_U, V128_OR, V128_ANY_TRUE] = [
  0x00, 0x0f, 0x23, 0x26, 0x50, 0x53,
];
// Locals: 0 = position, 1 = end (parameters), 2 = sixteen bytes, 3 = one byte.
const [P, E, V, B] = [0, 1, 2, 3];
// i32.const immediates are signed LEB128: 92 (`\`) needs two bytes.
const QUOTE = [I32_CONST, 0x22];
const BACKSLASH = [I32_CONST, 0xdc, 0x00];
const SPACE = [I32_CONST, 0x20];

const body = [
  ...[2, 1, V128, 1, I32], // locals: one v128, one i32
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  // while (position + 16 <= end)
  ...[LOCAL_GET, P, I32_CONST, 16, I32_ADD, LOCAL_GET, E, I32_GT_U, BR_IF, 1],
  ...[LOCAL_GET, P, SIMD, V128_LOAD, 0, 0, LOCAL_TEE, V],
  ...[...SPACE, SIMD, I8X16_SPLAT, SIMD, I8X16_LT_U],
  ...[LOCAL_GET, V, ...QUOTE, SIMD, I8X16_SPLAT, SIMD, I8X16_EQ, SIMD, V128_OR],
  ...[LOCAL_GET, V, ...BACKSLASH, SIMD, I8X16_SPLAT, SIMD, I8X16_EQ, SIMD, V128_OR],
  ...[SIMD, V128_ANY_TRUE, IF, EMPTY, I32_CONST, 1, RETURN, END],
  ...[LOCAL_GET, P, I32_CONST, 16, I32_ADD, LOCAL_SET, P, BR, 0, END, END],
  // the last bytes, one at a time
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  ...[LOCAL_GET, P, LOCAL_GET, E, I32_GE_U, BR_IF, 1],
  ...[LOCAL_GET, P, I32_LOAD8_U, 0, 0, LOCAL_TEE, B, ...SPACE, I32_LT_U],
  ...[LOCAL_GET, B, ...QUOTE, I32_EQ, I32_OR, LOCAL_GET, B, ...BACKSLASH, I32_EQ, I32_OR],
  ...[IF, EMPTY, I32_CONST, 1, RETURN, END],
  ...[LOCAL_GET, P, I32_CONST, 1, I32_ADD, LOCAL_SET, P, BR, 0, END, END],
  ...[I32_CONST, 0, END],
];

const ascii = (text: string): number[] => [text.length, ...Buffer.from(text, 'latin1')];
const section = (id: number, content: number[]): number[] => [
  id,
  ...leb(content.length),
  ...content,
];
function leb(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return bytes;
}

const MODULE_BYTES = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 2, I32, I32, 1, I32]), // type 0: (i32, i32) -> i32
  ...section(2, [1, ...ascii('env'), ...ascii('memory'), 0x02, 0x00, 1]), // import memory, min 1 page
  ...section(3, [1, 0]), // function 0 has type 0
  ...section(7, [1, ...ascii('dirty'), 0x00, 0]), // export function 0 as "dirty"
  ...section(10, [1, ...leb(body.length), ...body]),
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
    const dirty = instance.exports.dirty as DirtyScan;
    return { bytes: Buffer.from(memory.buffer), dirty };
  } catch {
    const bytes = Buffer.allocUnsafe(pages * 65536);
    return { bytes, dirty: (start, end) => dirtyInJs(bytes, start, end) };
  }
}
