import { createHash } from 'node:crypto';
import { checkImage, type ImagePart, type ImageService } from '@spine/protocol';
import { makePng } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { renderToolResult } from './render.js';

function service(): { images: ImageService; stored: Map<string, Uint8Array> } {
  const stored = new Map<string, Uint8Array>();
  return {
    stored,
    images: {
      store(bytes, what): ImagePart {
        const { mediaType, width, height, size } = checkImage(bytes, { what });
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        stored.set(sha256, bytes);
        return { type: 'image', mediaType, sha256, size, width, height };
      },
    },
  };
}

describe('MCP image results', () => {
  const png = makePng(12, 8, { noise: true });
  const result = {
    content: [
      { type: 'text', text: 'the chart:' },
      { type: 'image', mimeType: 'image/png', data: png.toString('base64') },
      // Declared PNG, really HTML: judged by its bytes and refused, with the reason.
      {
        type: 'image',
        mimeType: 'image/png',
        data: Buffer.from('<html>nope</html>').toString('base64'),
      },
    ],
  };

  it('passes images through to the model when the session takes images, byte for byte', () => {
    const { images, stored } = service();
    const output = renderToolResult(result, { server: 'charts', tool: 'plot', images });
    expect(output.images).toHaveLength(1);
    const part = output.images![0]!;
    expect(part).toMatchObject({ mediaType: 'image/png', width: 12, height: 8, size: png.length });
    expect(Buffer.from(stored.get(part.sha256)!).equals(png)).toBe(true);
    expect(output.content).toBe(
      `the chart:\n\n[image (image/png), ${png.length} bytes, 12×8, attached]\n\n[image not attached: image 2 of charts/plot was refused: not a PNG, JPEG, GIF or WebP image (judged by its first bytes, not its name)]`,
    );
  });

  it('describes images as text when the session does not take them', () => {
    const output = renderToolResult(result, { server: 'charts', tool: 'plot' });
    expect(output.images).toBeUndefined();
    expect(output.content).toContain(
      `[image (image/png), ${png.length} bytes, not shown to the model]`,
    );
  });
});
