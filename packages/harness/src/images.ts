// Images entering a session from the person (`@path` in the input, `spine run --image`) and
// from tools (`read` of an image file, MCP results): checked against the caps, stored once in
// the session's blob store, handed on as image parts.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import {
  checkImage,
  IMAGE_SERVICE,
  type ImageLimits,
  type ImagePart,
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
 * @throws {ImageRefusedError} when the image is refused.
 * @throws {ImagesUnavailableError} when the session's store keeps no blobs.
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

/**
 * Reads `--image` files (relative to `cwd`). Every one must be an image: a missing file or one
 * that is not a PNG, JPEG, GIF or WebP is an error here, before anything runs.
 *
 * @throws {ImageRefusedError} for a file that is not an accepted image.
 * @throws {SpineError} `INVALID_CONFIG` for a path that is not a readable file.
 */
export function readImageFiles(paths: readonly string[], cwd: string): AttachedImageFile[] {
  return paths.map((path) => {
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    let bytes: Buffer;
    try {
      bytes = readFileSync(absolute);
    } catch (error) {
      throw new SpineError({
        code: 'INVALID_CONFIG',
        message: `--image ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)}); pass an image file`,
        cause: error,
      });
    }
    checkImage(bytes, { what: path });
    return { path, bytes };
  });
}

const MENTION = /(?:^|\s)@([^\s@]+)/g;

/**
 * The `@path` mentions in `text` (as the REPL completes them) that name image files, judged by
 * their bytes: a mention of a missing file, of a text file or of one `allowed` refuses (outside
 * the workspace, excluded) stays plain text. The text itself is unchanged: the model sees the
 * mention, and the images follow it.
 *
 * @throws {ImageRefusedError} for a mentioned image that is refused (too large, truncated …).
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
    let bytes: Buffer;
    try {
      const absolute = resolve(cwd, path);
      if (!statSync(absolute).isFile()) continue;
      bytes = readFileSync(absolute);
    } catch {
      continue;
    }
    const header = readImageHeader(bytes);
    if ('kind' in header && header.kind === 'unknown-format') continue;
    checkImage(bytes, { what: `@${path}` });
    found.push({ path, bytes });
  }
  return found;
}
