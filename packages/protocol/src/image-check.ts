// The checks every door applies before an image enters a session, and the narrow ports through
// which bytes are stored and read back (a session's blob store). Zod-free: part of
// `@spine/protocol/core`.
import { SpineError } from './errors.js';
import { type ImageHeader, type ImageMediaType, readImageHeader } from './image-header.js';
import type { ImagePart } from './images.js';

/** Caps an image must stay under to enter a session. */
export interface ImageLimits {
  /** Largest file in bytes. */
  maxBytes: number;
  /** Largest width or height in pixels. */
  maxEdge: number;
  /** Largest width × height (a decompression bomb declares far more). */
  maxPixels: number;
}

/**
 * Default caps: 5 MiB and 8,000 px a side (Anthropic's published per-image limits, which
 * OpenAI's also fit), 40 megapixels in total.
 */
export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({
  maxBytes: 5 * 1024 * 1024,
  maxEdge: 8_000,
  maxPixels: 40_000_000,
});

/** Why {@link checkImage} refused an image. */
export type ImageRefusalReason =
  | 'not-a-regular-file'
  | 'unknown-format'
  | 'truncated'
  | 'malformed'
  | 'too-large'
  | 'too-many-pixels';

/** Thrown when an image is not one Spine accepts; the message names the file and the cap. */
export class ImageRefusedError extends SpineError {
  /** Which check failed. */
  readonly reason: ImageRefusalReason;

  constructor(options: { reason: ImageRefusalReason; what: string; detail: string }) {
    super({
      code: 'IMAGE_REFUSED',
      message: `${options.what} was refused: ${options.detail}`,
    });
    this.reason = options.reason;
  }
}

/** Bytes whose last byte(s) a complete file of this format ends with, or undefined. */
function endsComplete(bytes: Uint8Array, mediaType: ImageMediaType): boolean {
  const n = bytes.length;
  switch (mediaType) {
    case 'image/png':
      // The IEND chunk: length 0, "IEND", CRC AE 42 60 82.
      return n >= 12 && bytes[n - 8] === 0x49 && bytes[n - 7] === 0x45 && bytes[n - 4] === 0xae;
    case 'image/jpeg':
      for (let i = n - 2; i >= Math.max(0, n - 64); i--) {
        if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true;
      }
      return false;
    case 'image/gif':
      return n > 0 && bytes[n - 1] === 0x3b;
    case 'image/webp': {
      const riff = (bytes[4]! | (bytes[5]! << 8) | (bytes[6]! << 16) | (bytes[7]! << 24)) >>> 0;
      return riff + 8 <= n;
    }
  }
}

/**
 * Checks `bytes` are a complete PNG, JPEG, GIF or WebP image within `limits` (format from the
 * magic bytes, dimensions from the header, completeness from the format's trailer) and returns
 * its header. `what` names the image in the error (`shot.png`, `the MCP result`).
 *
 * @throws an {@link ImageRefusedError} for an unknown format, a truncated or malformed file, or a
 *   cap passed.
 * @example
 * ```ts
 * const header = checkImage(readFileSync('shot.png'), { what: 'shot.png' });
 * ```
 */
export function checkImage(
  bytes: Uint8Array,
  options: { what: string; limits?: Partial<ImageLimits> },
): ImageHeader & { size: number } {
  const limits = { ...DEFAULT_IMAGE_LIMITS, ...options.limits };
  const what = options.what;
  if (bytes.length > limits.maxBytes) {
    throw new ImageRefusedError({
      reason: 'too-large',
      what,
      detail: `${bytes.length} bytes is over the ${limits.maxBytes}-byte cap; shrink or crop it first`,
    });
  }
  const header = readImageHeader(bytes);
  if ('kind' in header) {
    throw new ImageRefusedError({ reason: header.kind, what, detail: header.message });
  }
  const { width, height, mediaType } = header;
  if (width > limits.maxEdge || height > limits.maxEdge || width * height > limits.maxPixels) {
    throw new ImageRefusedError({
      reason: 'too-many-pixels',
      what,
      detail: `it declares ${width}×${height} pixels; the caps are ${limits.maxEdge} px a side and ${limits.maxPixels} pixels in total (Spine does not downscale: resize it first)`,
    });
  }
  if (!endsComplete(bytes, mediaType)) {
    throw new ImageRefusedError({
      reason: 'truncated',
      what,
      detail: `the ${mediaType} file is incomplete (its end marker is missing)`,
    });
  }
  return { ...header, size: bytes.length };
}

/** Reads image bytes by SHA-256 (lower-case hex); undefined when the store does not hold them. */
export interface ImageBytes {
  /** The bytes stored under `sha256`, or undefined. */
  get(sha256: string): Uint8Array | undefined;
}

/**
 * A session's blob store as the loop and tools use it: bytes in, SHA-256 out, each blob stored
 * once however often it is put.
 *
 * Contract: `put` stores the bytes before it returns (durable per the store's policy, and
 * always before any event appended after it); it throws on I/O failure. `get` never throws for
 * a missing blob (it returns undefined).
 */
export interface SessionBlobs extends ImageBytes {
  /** Stores `bytes` (once) and returns their SHA-256 in lower-case hex. */
  put(bytes: Uint8Array): string;
}

/**
 * The per-session service (`context.services[IMAGE_SERVICE]`) through which a tool hands an
 * image to the session: checked against the caps, stored once, returned as a part for the
 * tool's output. Present only when the session's model accepts images.
 */
export interface ImageService {
  /**
   * Checks and stores `bytes`.
   *
   * @throws an {@link ImageRefusedError} when the image is refused.
   */
  store(bytes: Uint8Array, what: string): ImagePart;
  /**
   * Whether the session's model accepts images now (asked at each call: the model can be
   * switched mid-session). Absent: it does. A tool treats `false` as if there were no service.
   */
  accepts?(): boolean;
}

/** Key of the {@link ImageService} in `ToolExecutionContext.services`. */
export const IMAGE_SERVICE = 'images';

/** The text a model that does not accept images sees in an image's place (`placeholder` mode). */
export function imagePlaceholderText(image: ImagePart): string {
  return `[image omitted: ${image.mediaType}, ${image.width}×${image.height}, ${image.size} bytes, sha256 ${image.sha256.slice(0, 12)}; this model does not accept images]`;
}
