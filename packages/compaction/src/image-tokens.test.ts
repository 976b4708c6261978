import type { ImagePart, Message } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { imageTokens } from './image-tokens.js';
import { createTokenMeter } from './token-meter.js';

function image(width: number, height: number): ImagePart {
  return { type: 'image', mediaType: 'image/png', sha256: 'a'.repeat(64), size: 1, width, height };
}

describe('imageTokens', () => {
  it("follows OpenAI's published tile rule (85 + 170 per 512-px tile after scaling)", () => {
    expect(imageTokens(image(1024, 1024), 'openai')).toBe(765); // OpenAI's own example
    expect(imageTokens(image(2048, 4096), 'openai')).toBe(1105); // 768×1536: 2×3 tiles
    expect(imageTokens(image(100, 100), 'openai')).toBe(255); // one tile
  });

  it("follows Anthropic's published rule (w × h / 750 after a 1,568-px long edge)", () => {
    expect(imageTokens(image(1000, 1000), 'anthropic')).toBe(1334);
    expect(imageTokens(image(1092, 1092), 'anthropic')).toBe(1590); // Anthropic's table: ~1,590
    expect(imageTokens(image(3136, 3136), 'anthropic')).toBe(3279); // scaled to 1568×1568
  });

  it('adds image tokens to the message counts of the meter', () => {
    const meter = createTokenMeter({ tokenizer: 'o200k', imageTokens: 'anthropic' });
    const text: Message = { role: 'user', content: 'look at this' };
    const withImage: Message = { ...text, images: [image(1092, 1092)] };
    expect(meter.countMessage(withImage) - meter.countMessage(text)).toBe(1590);
  });
});
