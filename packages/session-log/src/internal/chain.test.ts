import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHAIN_EXTRA_BYTES,
  CHAIN_HEX_LENGTH,
  chainOf,
  chainValue,
  sealLineAfterGap,
  sealText,
} from './chain.js';

const previousValue = fc.oneof(
  fc.constant(''),
  fc
    .uint8Array({ minLength: 16, maxLength: 16 })
    .map((bytes) => Buffer.from(bytes).toString('hex')),
);

describe('the chain', () => {
  it('seals a line encoded after a gap exactly as sealText does (one-shot digest, same bytes)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string(),
        previousValue,
        fc.nat(64),
        (body, text, previous, pad) => {
          const json = JSON.stringify({ seq: 2, type: 'user/message', body, text });
          const expected = sealText(json, previous);
          const line = Buffer.from(`${json}\n`, 'utf8');
          const buffer = Buffer.alloc(
            pad + CHAIN_HEX_LENGTH + line.length + CHAIN_EXTRA_BYTES,
            0x78,
          );
          line.copy(buffer, pad + CHAIN_HEX_LENGTH);
          const sealed = sealLineAfterGap(
            buffer,
            pad,
            pad + CHAIN_HEX_LENGTH + line.length,
            previous,
          );
          expect(sealed.head).toBe(expected.head);
          expect(buffer.subarray(pad, sealed.end).toString('utf8')).toBe(expected.line);
          expect(buffer.subarray(0, pad).every((byte) => byte === 0x78)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is SHA-256 over the previous value and the line before `,"h":`, first 128 bits in hex', () => {
    const previous = 'ab'.repeat(16);
    const { line, head } = sealText('{"seq":1,"x":"é\\n"}', previous);
    const payload = Buffer.from('{"seq":1,"x":"é\\n"', 'utf8');
    const digest = createHash('sha256').update(previous, 'latin1').update(payload).digest('hex');
    expect(head).toBe(digest.slice(0, 32));
    expect(chainValue(previous, payload)).toBe(head);
    const parsed = chainOf(Buffer.from(line.slice(0, -1), 'utf8'));
    expect(parsed).toEqual({ payloadEnd: payload.length, head });
  });
});
