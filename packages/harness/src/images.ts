// Images entering a session from the person (`@path` in the input, `spine run --image`) and
// from tools (`read` of an image file, MCP results): checked against the caps, stored once in
// the session's blob store, handed on as image parts.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import {
  checkImage,
  DEFAULT_IMAGE_LIMITS,
  IMAGE_SERVICE,
  type ImageLimits,
  type ImagePart,
  ImageRefusedError,
  type ImageService,
  readImageHeader,
  type SessionLog,
  SpineError,
} from '@spine/protocol';

/** Thrown when a session cannot take images (its store keeps no blobs). */
export class ImagesUnavailableError extends SpineError {
  constructor(options: { sessionId: string }) {
    super({
      code: 'IMAGES_UNSUPPORTED',
      message: `session ${options.sessionId} is kept in a store without a blob store, so it cannot hold images; use the JSONL (default) or PostgreSQL store`,
    });
  }
}

/**
 * Checks `bytes` against the caps, stores them once in the session's blob store and returns
 * the image part that references them.
 *
 * @throws an {@link ImageRefusedError} when the image is refused.
 * @throws an {@link ImagesUnavailableError} when the session's store keeps no blobs.
 */
export function storeImage(
  session: SessionLog,
  bytes: Uint8Array,
  what: string,
  limits?: Partial<ImageLimits>,
): ImagePart {
  const header = checkImage(bytes, limits ? { what, limits } : { what });
  const blobs = session.blobs;
  if (!blobs) throw new ImagesUnavailableError({ sessionId: session.id });
  const sha256 = blobs.put(bytes);
  return {
    type: 'image',
    mediaType: header.mediaType,
    sha256,
    size: header.size,
    width: header.width,
    height: header.height,
  };
}

/**
 * The tool services of a session: the image service, which tools ask at each call whether the
 * model accepts images. Pass a function to follow a model switch (`/model`, ACP
 * `session/config`); a constant `false` leaves the service out.
 */
export function imageServices(
  session: SessionLog,
  acceptsImages: boolean | (() => boolean),
): { [key: string]: unknown } {
  if (acceptsImages === false) return {};
  const accepts = typeof acceptsImages === 'function' ? acceptsImages : () => true;
  const service: ImageService = {
    store: (bytes, what) => storeImage(session, bytes, what),
    accepts,
  };
  return { [IMAGE_SERVICE]: service };
}

/** The image files a person attached: `--image` paths and `@path` mentions of image files. */
export interface AttachedImageFile {
  /** The path as written. */
  path: string;
  /** The file's bytes. */
  bytes: Buffer;
}

/** What {@link readBoundedFile} read: at most the cap and one byte, and the file's size. */
interface BoundedRead {
  bytes: Buffer;
  /** The size the file declared when it was opened. */
  size: number;
}

/**
 * Reads at most `maxBytes + 1` bytes of the regular file at `absolute` (symlinks followed): a
 * device (`/dev/zero`), FIFO, socket or directory is refused before a byte is read, and a file
 * that grows while it is read still yields no more than the cap and one byte.
 *
 * @throws an {@link ImageRefusedError} `not-a-regular-file`.
 * @throws the file system's {@link Error} when it cannot be opened or read.
 */
function readBoundedFile(absolute: string, what: string, maxBytes: number): BoundedRead {
  const refuseKind = (): never => {
    throw new ImageRefusedError({
      reason: 'not-a-regular-file',
      what,
      detail: 'not a regular file (a device, FIFO, socket or directory); pass an image file',
    });
  };
  if (!statSync(absolute).isFile()) refuseKind();
  // O_NONBLOCK: should the path have become a FIFO since the check, opening it does not wait
  // for a writer; the descriptor's own type is checked again before reading.
  const fd = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) refuseKind();
    const limit = maxBytes + 1;
    let chunks: Buffer[] | undefined;
    let chunk = Buffer.allocUnsafe(Math.min(stats.size + 1, limit));
    let total = 0;
    let filled = 0;
    for (;;) {
      const read = readSync(fd, chunk, filled, chunk.length - filled, null);
      if (read === 0) break;
      filled += read;
      total += read;
      if (total >= limit) break;
      if (filled === chunk.length) {
        // The file grew since fstat: keep reading, up to the cap and one byte.
        chunks ??= [];
        chunks.push(chunk);
        chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit - total));
        filled = 0;
      }
    }
    const last = chunk.subarray(0, filled);
    const bytes = chunks ? Buffer.concat([...chunks, last]) : last;
    return { bytes, size: stats.size };
  } finally {
    closeSync(fd);
  }
}

/** Refuses bytes read by {@link readBoundedFile} that passed the cap. */
function assertUnderCap(read: BoundedRead, what: string, maxBytes: number): void {
  if (read.bytes.length <= maxBytes) return;
  // A file that grew past the cap while it was read declared less than it yielded.
  const size = read.size > maxBytes ? `${read.size} bytes` : `more than ${maxBytes} bytes`;
  throw new ImageRefusedError({
    reason: 'too-large',
    what,
    detail: `${size} is over the ${maxBytes}-byte cap; shrink or crop it first`,
  });
}

/**
 * Reads `--image` files (relative to `cwd`). Every one must be an image: a missing file or one
 * that is not a PNG, JPEG, GIF or WebP is an error here, before anything runs.
 *
 * @throws an {@link ImageRefusedError} for a file that is not an accepted image.
 * @throws a {@link SpineError} `INVALID_CONFIG` for a path that is not a readable file.
 */
export function readImageFiles(paths: readonly string[], cwd: string): AttachedImageFile[] {
  return paths.map((path) => {
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    const maxBytes = DEFAULT_IMAGE_LIMITS.maxBytes;
    let read: BoundedRead;
    try {
      read = readBoundedFile(absolute, path, maxBytes);
    } catch (error) {
      if (error instanceof ImageRefusedError) throw error;
      throw new SpineError({
        code: 'INVALID_CONFIG',
        message: `--image ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)}); pass an image file`,
        cause: error,
      });
    }
    assertUnderCap(read, path, maxBytes);
    checkImage(read.bytes, { what: path });
    return { path, bytes: read.bytes };
  });
}

const MENTION = /(?:^|\s)@([^\s@]+)/g;

/**
 * The `@path` mentions in `text` (as the REPL completes them) that name image files, judged by
 * their bytes: a mention of a missing file, of a text file or of one `allowed` refuses (outside
 * the workspace, excluded) stays plain text. The text itself is unchanged: the model sees the
 * mention, and the images follow it.
 *
 * @throws an {@link ImageRefusedError} for a mentioned image that is refused (too large, truncated
 *   …).
 */
export function imageMentions(
  text: string,
  cwd: string,
  options: { allowed: (reference: string) => boolean },
): AttachedImageFile[] {
  const found: AttachedImageFile[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const path = match[1] as string;
    if (seen.has(path) || !options.allowed(path)) continue;
    seen.add(path);
    const what = `@${path}`;
    const maxBytes = DEFAULT_IMAGE_LIMITS.maxBytes;
    let read: BoundedRead;
    try {
      // Bounded: a mention of a huge file (image or not) reads at most the cap and one byte;
      // a device, FIFO or directory is not read at all and stays plain text.
      read = readBoundedFile(resolve(cwd, path), what, maxBytes);
    } catch {
      continue;
    }
    const bytes = read.bytes;
    const header = readImageHeader(bytes);
    if ('kind' in header && header.kind === 'unknown-format') continue;
    assertUnderCap(read, what, maxBytes);
    checkImage(bytes, { what });
    found.push({ path, bytes });
  }
  return found;
}
