import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkImage, ImageRefusedError } from './image-check.js';
import { readImageHeader } from './image-header.js';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const IEND = [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];

/** A PNG's signature, IHDR (CRC not checked here), a stub IDAT and IEND. */
function png(width: number, height: number): Uint8Array {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr[16] = 8;
  ihdr[17] = 2;
  const idat = Buffer.from([0, 0, 0, 2, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0, 0, 0, 0]);
  return Buffer.concat([Buffer.from(SIGNATURE), ihdr, idat, Buffer.from(IEND)]);
}

function gif(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(14);
  bytes.write('GIF89a', 0, 'latin1');
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  bytes[13] = 0x3b;
  return bytes;
}

function jpeg(width: number, height: number, app = 0): Uint8Array {
  const appSegment = Buffer.alloc(app + 4);
  appSegment[0] = 0xff;
  appSegment[1] = 0xe1;
  appSegment.writeUInt16BE(app + 2, 2);
  const sof = Buffer.from([0xff, 0xc2, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01, 0x11, 0x00]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), appSegment, sof, Buffer.from([0xff, 0xd9])]);
}

function webpLossless(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(30);
  bytes.write('RIFF', 0, 'latin1');
  bytes.writeUInt32LE(22, 4);
  bytes.write('WEBPVP8L', 8, 'latin1');
  bytes.writeUInt32LE(10, 16);
  bytes[20] = 0x2f;
  bytes.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 21);
  return bytes;
}

const edge = fc.integer({ min: 1, max: 16_383 });

describe('readImageHeader', () => {
  it('never throws on arbitrary bytes, and answers a header or a problem', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const found = readImageHeader(bytes);
        if ('kind' in found) expect(found.message.length).toBeGreaterThan(0);
        else expect(found.width * found.height).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on arbitrary bytes behind each format magic', () => {
    const magics = [
      SIGNATURE,
      [0xff, 0xd8, 0xff],
      [...Buffer.from('GIF89a')],
      [...Buffer.from('RIFF\0\0\0\0WEBP')],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...magics), fc.uint8Array({ maxLength: 80 }), (magic, tail) => {
        readImageHeader(Buffer.concat([Buffer.from(magic), tail]));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the dimensions each format declares', () => {
    fc.assert(
      fc.property(edge, edge, fc.nat({ max: 300 }), (width, height, app) => {
        expect(readImageHeader(png(width, height))).toEqual({
          mediaType: 'image/png',
          width,
          height,
        });
        expect(readImageHeader(jpeg(width, height, app))).toEqual({
          mediaType: 'image/jpeg',
          width,
          height,
        });
        expect(readImageHeader(webpLossless(width, height))).toEqual({
          mediaType: 'image/webp',
          width,
          height,
        });
        if (width < 65_536 && height < 65_536)
          expect(readImageHeader(gif(width, height))).toEqual({
            mediaType: 'image/gif',
            width,
            height,
          });
      }),
    );
  });
});

describe('checkImage', () => {
  const refusal = (bytes: Uint8Array): string => {
    try {
      checkImage(bytes, { what: 'shot.png' });
    } catch (error) {
      expect(error).toBeInstanceOf(ImageRefusedError);
      expect((error as ImageRefusedError).code).toBe('IMAGE_REFUSED');
      expect((error as Error).message).toMatch(/^shot\.png was refused: /);
      return (error as ImageRefusedError).reason;
    }
    return 'accepted';
  };

  it('accepts a small complete image of each format', () => {
    expect(refusal(png(64, 48))).toBe('accepted');
    expect(refusal(gif(64, 48))).toBe('accepted');
    expect(refusal(jpeg(64, 48))).toBe('accepted');
    expect(refusal(webpLossless(64, 48))).toBe('accepted');
  });

  it('refuses an HTML file that starts with a PNG signature', () => {
    const html = Buffer.concat([
      Buffer.from(SIGNATURE),
      Buffer.from('<html><body>hi</body></html>'),
    ]);
    expect(refusal(html)).toBe('malformed');
    expect(refusal(Buffer.from('<!doctype html><html></html>'))).toBe('unknown-format');
  });

  it('refuses a 1×100,000 image and a decompression bomb by their declared pixels', () => {
    expect(refusal(png(1, 100_000))).toBe('too-many-pixels');
    expect(refusal(png(100_000, 100_000))).toBe('too-many-pixels');
    expect(refusal(png(7_000, 7_000))).toBe('too-many-pixels');
  });

  it('refuses a file over the byte cap before parsing it', () => {
    expect(() => checkImage(png(10, 10), { what: 'x', limits: { maxBytes: 20 } })).toThrow(
      /over the 20-byte cap/,
    );
  });

  it('refuses every strict prefix of a valid image as truncated or malformed', () => {
    const files = [png(40, 30), gif(40, 30), jpeg(40, 30, 20), webpLossless(40, 30)];
    fc.assert(
      fc.property(fc.constantFrom(...files), fc.nat(), (file, cut) => {
        const prefix = file.subarray(0, cut % file.length);
        expect(['truncated', 'malformed', 'unknown-format']).toContain(refusal(prefix));
      }),
      { numRuns: 1000 },
    );
  });
});
