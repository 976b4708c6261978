// The WebAssembly opcodes the escape module (escape-scan.ts, escape-expand.ts) is assembled from,
// with the two LEB128 encoders its immediates and section sizes need.

export const I32 = 0x7f;
export const V128 = 0x7b;
/** The empty block type. */
export const EMPTY = 0x40;
export const [BLOCK, LOOP, IF, ELSE, END, BR, BR_IF, RETURN, CALL, SELECT] = [
  0x02, 0x03, 0x04, 0x05, 0x0b, 0x0c, 0x0d, 0x0f, 0x10, 0x1b,
];
export const [LOCAL_GET, LOCAL_SET, LOCAL_TEE, I32_CONST] = [0x20, 0x21, 0x22, 0x41];
export const [I32_LOAD8_U, I32_STORE8] = [0x2d, 0x3a];
export const [I32_EQZ, I32_EQ, I32_LT_U, I32_GT_U, I32_GE_U] = [0x45, 0x46, 0x49, 0x4b, 0x4f];
export const I32_CLZ = 0x67;
export const [I32_POPCNT, I32_ADD, I32_SUB, I32_AND, I32_OR, I32_SHL, I32_SHR_U] = [
  0x69, 0x6a, 0x6b, 0x71, 0x72, 0x74, 0x76,
];
/** The prefix of the SIMD opcodes below. */
export const SIMD = 0xfd;
export const [V128_LOAD, V128_STORE, I8X16_SPLAT, I8X16_EQ, I8X16_LT_U] = [
  0x00, 0x0b, 0x0f, 0x23, 0x26,
];
export const [V128_ANDNOT, V128_OR, V128_ANY_TRUE, I8X16_BITMASK, I8X16_SUB] = [
  0x4f, 0x50, 0x53, 0x64, 0x71,
];

/** Unsigned LEB128 (section and body sizes, counts). */
export function leb(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return bytes;
}

/** `i32.const value` for 0 ≤ value < 8192 (the immediate is signed LEB128). */
export function i32(value: number): number[] {
  return value < 64 ? [I32_CONST, value] : [I32_CONST, (value & 0x7f) | 0x80, value >> 7];
}

/** `i8x16.splat` of a byte constant: sixteen copies of `value`. */
export function splat(value: number): number[] {
  return [...i32(value), SIMD, I8X16_SPLAT];
}
