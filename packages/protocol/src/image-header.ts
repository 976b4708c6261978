// Image headers parsed by hand: the format from its magic bytes, the dimensions from the header
// fields each format defines. Pure and dependency-free (part of `@spine/protocol/core`), so the
// CLI, tools, MCP and ACP paths all refuse the same files for the same reasons.

/** The image formats Spine accepts, as media types. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** One of {@link IMAGE_MEDIA_TYPES}. */
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** What {@link readImageHeader} found: the format and the pixel dimensions its header declares. */
export interface ImageHeader {
  /** The format, from the magic bytes (never from a file name). */
  mediaType: ImageMediaType;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

/** Why {@link readImageHeader} refused bytes: the header is unknown, or known but broken. */
export type ImageHeaderProblem =
  | { kind: 'unknown-format'; message: string }
  | { kind: 'truncated'; mediaType: ImageMediaType; message: string }
  | { kind: 'malformed'; mediaType: ImageMediaType; message: string };

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  let text = '';
  for (let i = at; i < at + length && i < bytes.length; i++) text += String.fromCharCode(bytes[i]!);
  return text;
}

function u16be(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}
function u16le(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}
function u24le(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
}
function u32be(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at]! << 24) >>> 0) + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!)
  );
}

function truncated(mediaType: ImageMediaType, what: string): ImageHeaderProblem {
  return { kind: 'truncated', mediaType, message: `the ${mediaType} file ends inside its ${what}` };
}
function malformed(mediaType: ImageMediaType, what: string): ImageHeaderProblem {
  return { kind: 'malformed', mediaType, message: `the ${mediaType} header is malformed: ${what}` };
}

function readPng(bytes: Uint8Array): ImageHeader | ImageHeaderProblem {
  // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), then 5 bytes and a CRC.
  if (bytes.length < 33) return truncated('image/png', 'IHDR chunk');
  if (u32be(bytes, 8) !== 13 || ascii(bytes, 12, 4) !== 'IHDR') {
    return malformed('image/png', 'the first chunk is not a 13-byte IHDR');
  }
  return { mediaType: 'image/png', width: u32be(bytes, 16), height: u32be(bytes, 20) };
}

function readGif(bytes: Uint8Array): ImageHeader | ImageHeaderProblem {
  if (bytes.length < 10) return truncated('image/gif', 'logical screen descriptor');
  return { mediaType: 'image/gif', width: u16le(bytes, 6), height: u16le(bytes, 8) };
}

/** JPEG: walk the marker segments to the first start-of-frame (SOF0–SOF15 but DHT/JPG/DAC). */
function readJpeg(bytes: Uint8Array): ImageHeader | ImageHeaderProblem {
  let at = 2;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) return malformed('image/jpeg', `no marker at byte ${at}`);
    while (at < bytes.length && bytes[at] === 0xff) at++;
    if (at >= bytes.length) break;
    const marker = bytes[at]!;
    at++;
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd9 || marker === 0xda) {
      return malformed('image/jpeg', 'the image data starts before any frame header');
    }
    if (at + 2 > bytes.length) break;
    const length = u16be(bytes, at);
    if (length < 2) return malformed('image/jpeg', `segment length ${length} at byte ${at}`);
    const isFrame =
      marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (at + 7 > bytes.length) break;
      return { mediaType: 'image/jpeg', height: u16be(bytes, at + 3), width: u16be(bytes, at + 5) };
    }
    at += length;
  }
  return truncated('image/jpeg', 'headers (no frame header found)');
}

/** WebP: RIFF container; VP8 (lossy), VP8L (lossless) or VP8X (extended) first chunk. */
function readWebp(bytes: Uint8Array): ImageHeader | ImageHeaderProblem {
  if (bytes.length < 30) return truncated('image/webp', 'first chunk');
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8 ') {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) {
      return malformed('image/webp', 'the VP8 frame has no start code');
    }
    return {
      mediaType: 'image/webp',
      width: u16le(bytes, 26) & 0x3fff,
      height: u16le(bytes, 28) & 0x3fff,
    };
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) return malformed('image/webp', 'the VP8L chunk has no signature');
    const bits = bytes[21]! | (bytes[22]! << 8) | (bytes[23]! << 16) | (bytes[24]! << 24);
    return {
      mediaType: 'image/webp',
      width: (bits & 0x3fff) + 1,
      height: ((bits >>> 14) & 0x3fff) + 1,
    };
  }
  if (chunk === 'VP8X') {
    return { mediaType: 'image/webp', width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  }
  return malformed('image/webp', `unknown first chunk ${JSON.stringify(chunk)}`);
}

/**
 * Reads the format and dimensions of PNG, JPEG, GIF or WebP bytes from their headers alone (no
 * pixel is decoded, so a decompression bomb costs nothing here: its declared size is what the
 * caller's pixel cap judges). Returns a problem, never throws, for anything else.
 *
 * @example
 * ```ts
 * const header = readImageHeader(readFileSync('shot.png'));
 * if ('kind' in header) console.error(header.message);
 * ```
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader | ImageHeaderProblem {
  let found: ImageHeader | ImageHeaderProblem;
  if (startsWith(bytes, PNG)) found = readPng(bytes);
  else if (startsWith(bytes, [0xff, 0xd8, 0xff])) found = readJpeg(bytes);
  else if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a')
    found = readGif(bytes);
  else if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') found = readWebp(bytes);
  else {
    return {
      kind: 'unknown-format',
      message: 'not a PNG, JPEG, GIF or WebP image (judged by its first bytes, not its name)',
    };
  }
  if ('kind' in found) return found;
  if (found.width === 0 || found.height === 0) {
    return malformed(found.mediaType, `it declares ${found.width}×${found.height} pixels`);
  }
  return found;
}
