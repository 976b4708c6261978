// The tamper-evident chain of a JSONL log. Every line the JSONL store writes ends with the chain
// value of its event as the last key: `{…,"h":"<32 hex>"}`. The value is the first 128 bits (hex)
// of SHA-256 over the previous line's value (empty for the first chained line) followed by the
// line's bytes up to, not including, `,"h":`. Changing, removing, inserting or reordering any
// line breaks every value from there on; `verifyJsonlChain` names the first broken one.
import { createHash } from 'node:crypto';

/** Hex digits of a chain value. */
export const CHAIN_HEX_LENGTH = 32;
/** `,"h":"` */
const KEY = Buffer.from(',"h":"', 'latin1');
/** Bytes a chain value adds to a line: `,"h":"` + 32 hex + `"` (the `}\n` was there already). */
export const CHAIN_EXTRA_BYTES = KEY.length + CHAIN_HEX_LENGTH + 1;

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

/** Seals a line given as text (`JSON.stringify` of an event, without the newline). */
export function sealText(json: string, previous: string): { line: string; head: string } {
  const payload = json.slice(0, -1);
  const head = chainValue(previous, Buffer.from(payload, 'utf8'));
  return { line: `${payload},"h":"${head}"}\n`, head };
}

/**
 * Splits a line (without its newline) into the payload the chain value covers and the value it
 * carries; undefined when the line carries no chain value in the last position.
 */
export function chainOf(line: Uint8Array): { payloadEnd: number; head: string } | undefined {
  const length = line.length;
  const keyAt = length - 2 - CHAIN_HEX_LENGTH - KEY.length;
  if (keyAt < 1 || line[length - 1] !== 0x7d || line[length - 2] !== 0x22) return undefined;
  for (let i = 0; i < KEY.length; i++) if (line[keyAt + i] !== KEY[i]) return undefined;
  const head = Buffer.from(
    line.buffer,
    line.byteOffset + keyAt + KEY.length,
    CHAIN_HEX_LENGTH,
  ).toString('latin1');
  return { payloadEnd: keyAt, head };
}
