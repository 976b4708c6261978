// Image parts on the wire: the bytes read from the request's blob store, checked against the
// SHA-256 the log recorded (so what is sent is what `replay --verify` proves), then base64 in
// each provider's shape. And the two message rewrites that keep the encoders' per-message
// caches valid: tool images moved after their run of tool messages (OpenAI), and images
// replaced by placeholder text for a model that does not accept them.
import { hash } from 'node:crypto';
import {
  type ImageBytes,
  type ImagePart,
  imagePlaceholderText,
  type Message,
  type ModelRequest,
  type ToolResultMessage,
  type UserMessage,
} from '@spine/protocol';
import { ImageBlobError, ImagesUnsupportedError } from '../errors.js';

/** A blob's verified bytes and their base64, kept for the next message carrying it. */
interface Encoded {
  bytes: Uint8Array;
  base64: string;
}

/** How many bytes (blob plus base64) the cache below may hold, process-wide. */
const IMAGE_CACHE_BYTES = 64 * 1024 * 1024;

// Most recently used last. A hit still asks the store for the blob (a missing one is named as
// before) and compares its bytes with the verified ones (the same object, or equal by memcmp),
// so what is sent is always the bytes the log's SHA-256 names; only hashing and base64 are saved.
const encodedBySha = new Map<string, Encoded>();
let cachedBytes = 0;

function remember(sha256: string, entry: Encoded): void {
  const size = entry.bytes.byteLength + entry.base64.length;
  if (size > IMAGE_CACHE_BYTES) return;
  const previous = encodedBySha.get(sha256);
  if (previous) cachedBytes -= previous.bytes.byteLength + previous.base64.length;
  encodedBySha.set(sha256, entry);
  cachedBytes += size;
  for (const [key, old] of encodedBySha) {
    if (cachedBytes <= IMAGE_CACHE_BYTES) break;
    encodedBySha.delete(key);
    cachedBytes -= old.bytes.byteLength + old.base64.length;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** The base64 of `part`'s bytes, checked against its SHA-256 (cached by SHA-256, bounded). */
export function imageBase64(images: ImageBytes | undefined, part: ImagePart): string {
  const bytes = images?.get(part.sha256);
  if (bytes === undefined) throw new ImageBlobError({ sha256: part.sha256, problem: 'missing' });
  const known = encodedBySha.get(part.sha256);
  if (known && sameBytes(known.bytes, bytes)) {
    encodedBySha.delete(part.sha256);
    encodedBySha.set(part.sha256, known);
    return known.base64;
  }
  if (hash('sha256', bytes, 'hex') !== part.sha256) {
    throw new ImageBlobError({ sha256: part.sha256, problem: 'altered' });
  }
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  remember(part.sha256, { bytes, base64 });
  return base64;
}

/** An OpenAI chat-completions `image_url` content part (a data URI). */
export function openAIImagePart(images: ImageBytes | undefined, part: ImagePart): string {
  return `{"type":"image_url","image_url":{"url":"data:${part.mediaType};base64,${imageBase64(images, part)}"}}`;
}

/** An Anthropic `image` block with a base64 source. */
export function anthropicImageBlock(images: ImageBytes | undefined, part: ImagePart): string {
  return `{"type":"image","source":{"type":"base64","media_type":"${part.mediaType}","data":"${imageBase64(images, part)}"}}`;
}

/** True when any message carries images. */
export function hasImages(messages: readonly Message[]): boolean {
  for (const message of messages) {
    if (message.role !== 'assistant' && message.images !== undefined && message.images.length > 0)
      return true;
  }
  return false;
}

const placeholders = new WeakMap<Message, Message>();

/** `messages` with every image replaced by {@link imagePlaceholderText} (same objects otherwise). */
export function withImagePlaceholders(messages: readonly Message[]): readonly Message[] {
  if (!hasImages(messages)) return messages;
  return messages.map((message) => {
    if (message.role === 'assistant' || !message.images || message.images.length === 0)
      return message;
    let replaced = placeholders.get(message);
    if (!replaced) {
      const { images, ...rest } = message;
      const texts = images.map(imagePlaceholderText).join('\n');
      const content = rest.content === '' ? texts : `${rest.content}\n${texts}`;
      replaced = { ...rest, content } as UserMessage | ToolResultMessage;
      placeholders.set(message, replaced);
    }
    return replaced;
  });
}

const carriers = new WeakMap<Message, UserMessage>();

/**
 * OpenAI tool messages carry text only, and tool messages must directly follow their assistant
 * message: each tool message's images go into a user message (one per tool message, cached by
 * it so that its bytes are encoded once) placed after the run of tool messages.
 */
export function withToolImagesAfterRun(messages: readonly Message[]): readonly Message[] {
  let any = false;
  for (const message of messages) {
    if (message.role === 'tool' && message.images && message.images.length > 0) {
      any = true;
      break;
    }
  }
  if (!any) return messages;
  const out: Message[] = [];
  let pending: UserMessage[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && pending.length > 0) {
      out.push(...pending);
      pending = [];
    }
    if (message.role === 'tool' && message.images && message.images.length > 0) {
      let carrier = carriers.get(message);
      if (!carrier) {
        carrier = {
          role: 'user',
          content: `[images returned by ${message.toolName} (call ${message.toolCallId})]`,
          source: 'tool-images',
          images: message.images,
        };
        carriers.set(message, carrier);
      }
      pending.push(carrier);
    }
    out.push(message);
  }
  out.push(...pending);
  return out;
}

/** How a client treats images for a model: accepted, or refused / replaced by placeholder text. */
export interface ImagePolicy {
  /** The provider name, for the error. */
  provider: string;
  /** Whether this request's model accepts images. */
  accepts: (model: string) => boolean;
  /** What to do when it does not (default `error`). */
  unsupported: 'error' | 'placeholder' | undefined;
}

/** The fallback `policy` applies to images for `model` (`ModelClient.imageFallback`). */
export function imageFallbackOf(policy: ImagePolicy, model: string): 'placeholder' | undefined {
  return policy.unsupported === 'placeholder' && !policy.accepts(model) ? 'placeholder' : undefined;
}

/**
 * `request` as the policy lets it be sent: unchanged when it has no images or the model accepts
 * them; with placeholder text in the images' place when so configured.
 *
 * @throws an {@link ImagesUnsupportedError} when the model does not accept images and no
 *   placeholder is wanted.
 */
export function applyImagePolicy(request: ModelRequest, policy: ImagePolicy): ModelRequest {
  // A request that records its fallback (built so, or replayed from a log that says so) is
  // encoded as recorded, whatever this client's configuration is now.
  const recorded = request.imageFallback === 'placeholder';
  if ((!recorded && policy.accepts(request.model)) || !hasImages(request.messages)) return request;
  if (!recorded && policy.unsupported !== 'placeholder') {
    throw new ImagesUnsupportedError({ provider: policy.provider, model: request.model });
  }
  return { ...request, messages: withImagePlaceholders(request.messages) };
}
