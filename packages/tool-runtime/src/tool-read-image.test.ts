import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkImage, IMAGE_SERVICE, type ImagePart, type ImageService } from '@spine/protocol';
import { makePng } from '@spine/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runOne } from '../test/helpers.js';
import { createToolRuntime } from './runtime.js';
import { createWorkspaceTools } from './workspace-tools.js';

let ws: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: ws, cleanup } = makeTempDir('spine-read-image-'));
});
afterEach(() => cleanup());

/** An image service over a plain map, as the harness wires one over the session's blobs. */
function imageService(): { service: ImageService; stored: Map<string, Uint8Array> } {
  const stored = new Map<string, Uint8Array>();
  const service: ImageService = {
    store(bytes, what): ImagePart {
      const header = checkImage(bytes, { what });
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      stored.set(sha256, bytes);
      const { mediaType, width, height, size } = header;
      return { type: 'image', mediaType, sha256, size, width, height };
    },
  };
  return { service, stored };
}

describe('read of an image file', () => {
  it('returns image content when the session takes images, judged by the bytes not the name', async () => {
    const png = makePng(30, 20, { noise: true });
    writeFileSync(join(ws, 'screenshot.dat'), png);
    const { service, stored } = imageService();
    const runtime = createToolRuntime({
      cwd: ws,
      tools: createWorkspaceTools({ cwd: ws }),
      approval: 'never-ask',
      services: { [IMAGE_SERVICE]: service },
    });
    const result = await runOne(runtime, 'read', { path: 'screenshot.dat' });
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      `screenshot.dat: image/png image, 30×20 pixels, ${png.length} bytes (attached below).`,
    );
    expect(result.images).toEqual([
      {
        type: 'image',
        mediaType: 'image/png',
        sha256: createHash('sha256').update(png).digest('hex'),
        size: png.length,
        width: 30,
        height: 20,
      },
    ]);
    expect(Buffer.from(stored.get(result.images![0]!.sha256)!).equals(png)).toBe(true);
  });

  it('tells the model why an image was refused, and reads text files as before', async () => {
    writeFileSync(join(ws, 'tall.png'), makePng(1, 9_000));
    writeFileSync(join(ws, 'notes.txt'), 'hello\n');
    const runtime = createToolRuntime({
      cwd: ws,
      tools: createWorkspaceTools({ cwd: ws }),
      approval: 'never-ask',
      services: { [IMAGE_SERVICE]: imageService().service },
    });
    const tall = await runOne(runtime, 'read', { path: 'tall.png' });
    expect(tall.isError).toBe(true);
    expect(tall.content).toMatch(/^tall\.png was refused: it declares 1×9000 pixels/);
    expect(tall.images).toBeUndefined();
    expect((await runOne(runtime, 'read', { path: 'notes.txt' })).content).toBe('     1\thello');
  });

  it('keeps an image a binary file for a model that does not take images (no service)', async () => {
    writeFileSync(join(ws, 'shot.png'), makePng(8, 8));
    const runtime = createToolRuntime({
      cwd: ws,
      tools: createWorkspaceTools({ cwd: ws }),
      approval: 'never-ask',
    });
    const result = await runOne(runtime, 'read', { path: 'shot.png' });
    expect(result.content).toMatch(/is a binary file/);
    expect(result.images).toBeUndefined();
  });
});
