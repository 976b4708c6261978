// What an image costs in prompt tokens, by each provider's published rule. The meter adds it per
// image part, so a session with screenshots feels its real context pressure.
import type { ImagePart } from '@spine/protocol';

/** A provider's rule for the prompt tokens of one image, or your own function. */
export type ImageTokenRule = 'anthropic' | 'openai' | ((image: ImagePart) => number);

/**
 * Anthropic: an image whose long edge exceeds 1,568 px is scaled down to it first; then
 * tokens ≈ width × height / 750.
 */
function anthropicTokens(image: ImagePart): number {
  const scale = Math.min(1, 1568 / Math.max(image.width, image.height));
  return Math.ceil((image.width * scale * (image.height * scale)) / 750);
}

/**
 * OpenAI (detail `high`, the default for large images): fit within 2,048 × 2,048, then scale
 * the short side down to 768; 85 tokens plus 170 per 512-px tile.
 */
function openAITokens(image: ImagePart): number {
  let width = image.width;
  let height = image.height;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shrink = Math.min(1, 768 / Math.min(width, height));
  width *= shrink;
  height *= shrink;
  return 85 + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
}

/**
 * The prompt tokens of `image` under `rule`.
 *
 * @example
 * ```ts
 * imageTokens({ type: 'image', mediaType: 'image/png', sha256, size, width: 1024, height: 768 }, 'openai'); // 765
 * ```
 */
export function imageTokens(image: ImagePart, rule: ImageTokenRule): number {
  if (typeof rule === 'function') return rule(image);
  return rule === 'anthropic' ? anthropicTokens(image) : openAITokens(image);
}
