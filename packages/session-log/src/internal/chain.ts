// The tamper-evident chain of a JSONL log. Every line the JSONL store writes ends with the chain
// value of its event as the last key: `{…,"h":"<32 hex>"}`. The value is the first 128 bits (hex)
// of SHA-256 over the previous line's value (empty for the first chained line) followed by the
// line's bytes up to, not including, `,"h":`. Changing, removing, inserting or reordering any
// line breaks every value from there on; `verifyJsonlChain` names the first broken one.
import { createHash, hash } from './crypto.js';

/** Hex digits of a chain value. */
export const CHAIN_HEX_LENGTH = 32;
/** `,"h":"` */
const KEY = Buffer.from(',"h":"', 'latin1');
/** Bytes a chain value adds to a line: `,"h":"` + 32 hex + `"` (the `}\n` was there already). */
export const CHAIN_EXTRA_BYTES = KEY.length + CHAIN_HEX_LENGTH + 1;

/**
 * The chain value over `bytes`, which hold the previous value's latin1 bytes (none for the first
 * chained line) followed by the payload: one one-shot digest, no Hash object.
 */
export function chainValueOfJoined(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex').slice(0, CHAIN_HEX_LENGTH);
}

/** The chain value of a line whose bytes before `,"h":` are `payload`. */
export function chainValue(previous: string, payload: Uint8Array): string {
  return createHash('sha256')
    .update(previous, 'latin1')
    .update(payload)
    .digest()
    .toString('hex', 0, CHAIN_HEX_LENGTH / 2);
}

/**
 * Seals the line `buffer[start..end)` (a JSON object and a newline) in place: inserts its chain
 * value as the last key. The buffer needs {@link CHAIN_EXTRA_BYTES} of room after `end`.
 * Returns the new end and the value.
 */
export function sealLine(
  buffer: Buffer,
  start: number,
  end: number,
  previous: string,
): { end: number; head: string } {
  const close = end - 2; // the `}` of the object
  const head = chainValue(previous, buffer.subarray(start, close));
  let at = close;
  at += KEY.copy(buffer, at);
  at += buffer.write(head, at, 'latin1');
  buffer[at++] = 0x22; // "
  buffer[at++] = 0x7d; // }
  buffer[at++] = 0x0a;
  return { end: at, head };
}

/**
 * Seals the line at `buffer[start + CHAIN_HEX_LENGTH..end)` (a JSON object and a newline, encoded
 * after a gap of {@link CHAIN_HEX_LENGTH} bytes) and moves it to `start`: the previous value is
 * written into the gap so that one one-shot digest covers previous value and payload without a
 * copy, then the payload moves back over the gap and gets its chain value as the last key. The
 * buffer needs {@link CHAIN_EXTRA_BYTES} - {@link CHAIN_HEX_LENGTH} of room after `end`. Returns
 * the new end and the value; the same value {@link chainValue} gives.
 */
export function sealLineAfterGap(
  buffer: Buffer,
  start: number,
  end: number,
  previous: string,
): { end: number; head: string } {
  const lineStart = start + CHAIN_HEX_LENGTH;
  const close = end - 2; // the `}` of the object
  if (previous.length > CHAIN_HEX_LENGTH) {
    buffer.copyWithin(start, lineStart, end);
    return sealLine(buffer, start, end - CHAIN_HEX_LENGTH, previous);
  }
  const from = lineStart - previous.length;
  // The few bytes around the digest are stored one by one: for 6 to 32 characters a loop costs
  // less than a call into Buffer's native write or copy (~15% of sealing a 1 KB line).
  for (let i = 0; i < previous.length; i++) buffer[from + i] = previous.charCodeAt(i);
  // Hex output straight from the digest is cheaper than a Buffer turned into hex.
  const digest = hash('sha256', buffer.subarray(from, close), 'hex');
  buffer.copyWithin(start, lineStart, close);
  let at = close - CHAIN_HEX_LENGTH;
  for (let i = 0; i < KEY.length; i++) buffer[at++] = KEY[i] as number;
  for (let i = 0; i < CHAIN_HEX_LENGTH; i++) buffer[at++] = digest.charCodeAt(i);
  const head = digest.slice(0, CHAIN_HEX_LENGTH);
  buffer[at++] = 0x22; // "
  buffer[at++] = 0x7d; // }
  buffer[at++] = 0x0a;
  return { end: at, head };
}

/** Seals a line given as text (`JSON.stringify` of an event, without the newline). */
export function sealText(json: string, previous: string): { line: string; head: string } {
  const payload = json.slice(0, -1);
  const head = chainValue(previous, Buffer.from(payload, 'utf8'));
  return { line: `${payload},"h":"${head}"}\n`, head };
}

/**
 * Where the `,"h":"` of the line `bytes[start..end)` (without its newline) begins, relative to
 * `start`: the length of the payload its chain value covers; -1 when the line carries no chain
 * value in the last position.
 */
export function chainKeyAt(bytes: Uint8Array, start: number, end: number): number {
  const keyAt = end - start - 2 - CHAIN_HEX_LENGTH - KEY.length;
  if (keyAt < 1 || bytes[end - 1] !== 0x7d || bytes[end - 2] !== 0x22) return -1;
  for (let i = 0; i < KEY.length; i++) if (bytes[start + keyAt + i] !== KEY[i]) return -1;
  return keyAt;
}

/** True when `bytes[at..at + 32)` are the first {@link CHAIN_HEX_LENGTH} characters of `hex`. */
export function carriesValue(bytes: Uint8Array, at: number, hex: string): boolean {
  for (let i = 0; i < CHAIN_HEX_LENGTH; i++) if (bytes[at + i] !== hex.charCodeAt(i)) return false;
  return true;
}

/**
 * Splits a line (without its newline) into the payload the chain value covers and the value it
 * carries; undefined when the line carries no chain value in the last position.
 */
export function chainOf(line: Uint8Array): { payloadEnd: number; head: string } | undefined {
  const keyAt = chainKeyAt(line, 0, line.length);
  if (keyAt < 0) return undefined;
  const head = Buffer.from(
    line.buffer,
    line.byteOffset + keyAt + KEY.length,
    CHAIN_HEX_LENGTH,
  ).toString('latin1');
  return { payloadEnd: keyAt, head };
}
