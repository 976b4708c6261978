// The image part a message carries: a reference by SHA-256, never the bytes (zod schema; the
// zod-free checks and ports are in image-check.ts).
import { z } from 'zod';
import { IMAGE_MEDIA_TYPES } from './image-header.js';

/**
 * An image in a user message or a tool result: what it is and which bytes, by SHA-256 (lower-case
 * hex). The bytes live once per session in its blob store; encoders read them through
 * {@link ModelRequest.images} and `replay --verify` hashes them against `sha256`.
 */
export const ImagePartSchema = z.object({
  type: z.literal('image'),
  mediaType: z.literal(IMAGE_MEDIA_TYPES),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().positive(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});
/** An image reference; see {@link ImagePartSchema}. */
export type ImagePart = z.infer<typeof ImagePartSchema>;
