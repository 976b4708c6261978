import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** What was read from a response body. */
export interface BodyRead {
  /** Decoded bytes, at most the cap. */
  bytes: Buffer;
  /** Bytes received from the network (compressed size when the body was compressed). */
  networkBytes: number;
  /** True when the body was cut at the cap. */
  truncated: boolean;
}

/** Stops reading a body: undici reports the destroy as an abort error, which is expected here. */
export function discardBody(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Returns a decompressor for a Content-Encoding, `null` for identity, `undefined` if unknown. */
function decoderFor(encoding: string): NodeJS.ReadWriteStream | null | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** True when {@link readCapped} can decode this Content-Encoding. */
export function isSupportedEncoding(encoding: string): boolean {
  const decoder = decoderFor(encoding.trim().toLowerCase());
  if (decoder) (decoder as unknown as Readable).destroy();
  return decoder !== undefined;
}

/**
 * Streams a body and stops at `maxBytes` of decoded content: the rest is never read (the stream
 * is destroyed), so an endless or huge body costs at most the cap. Decompression happens inside
 * the cap, so a compression bomb is cut like any other body.
 */
export async function readCapped(
  body: Readable,
  encoding: string,
  maxBytes: number,
): Promise<BodyRead> {
  let networkBytes = 0;
  body.on('error', () => undefined);
  const decoder = decoderFor(encoding.trim().toLowerCase());
  let source: AsyncIterable<Buffer> = body;
  if (decoder) {
    body.on('data', (chunk: Buffer) => {
      networkBytes += chunk.length;
    });
    body.on('error', (error) => (decoder as unknown as Readable).destroy(error));
    (decoder as unknown as Readable).on('error', () => undefined);
    body.pipe(decoder);
    source = decoder as unknown as AsyncIterable<Buffer>;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of source) {
      if (!decoder) networkBytes += chunk.length;
      if (total + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      total += chunk.length;
    }
  } finally {
    if (decoder) (decoder as unknown as Readable).destroy();
    body.destroy();
  }
  return { bytes: Buffer.concat(chunks, total), networkBytes, truncated };
}
