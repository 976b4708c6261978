import { createHash } from 'node:crypto';
import type { ImageBytes, ImagePart, Message, ModelClient } from '@spine/protocol';
import { makeGif, makeJpeg, makePng, makeWebp } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAnthropicModel,
  createOpenAICompatibleModel,
  ImageBlobError,
  ImagesUnsupportedError,
} from '../src/index.js';
import { fixtureLines, frameLines, replayServer } from './fixture-server.js';
import { collect, collectError, request } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function store(files: Buffer[]): { images: ImageBytes; parts: ImagePart[] } {
  const blobs = new Map<string, Uint8Array>();
  const parts = files.map((bytes, i): ImagePart => {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    blobs.set(sha256, bytes);
    const mediaType = (['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const)[i % 4]!;
    return { type: 'image', mediaType, sha256, size: bytes.length, width: 40, height: 30 };
  });
  return { images: { get: (sha256) => blobs.get(sha256) }, parts };
}

const files = [
  makePng(40, 30, { noise: true }),
  makeJpeg(40, 30),
  makeGif(40, 30),
  makeWebp(40, 30),
];

function history(parts: ImagePart[]): Message[] {
  return [
    { role: 'user', content: 'What is on these?', source: 'user', images: parts.slice(0, 2) },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', id: 'call_1', name: 'read', arguments: '{"path":"a.gif"}' }],
    },
    {
      role: 'tool',
      toolCallId: 'call_1',
      toolName: 'read',
      content: 'a.gif',
      images: parts.slice(2),
    },
  ];
}

async function openAIServer() {
  const server = await replayServer(frameLines(fixtureLines('openai-text.chunks.txt')));
  cleanups.push(() => server.close());
  return server;
}

async function anthropicServer() {
  const server = await replayServer(
    frameLines(fixtureLines('anthropic-text.chunks.txt'), { named: true }),
  );
  cleanups.push(() => server.close());
  return server;
}

describe('images on the wire', () => {
  it('sends OpenAI image_url data URIs whose bytes equal the blobs, tool images after the tool run', async () => {
    const server = await openAIServer();
    const model = createOpenAICompatibleModel({
      baseUrl: server.baseUrl,
      apiKey: 'k',
      provider: 'openai',
    });
    const { images, parts } = store(files);
    await collect(model, request({ model: 'gpt-4.1', messages: history(parts), images }));
    const body = server.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    const urls: string[] = [];
    for (const message of body.messages) {
      if (!Array.isArray(message.content)) continue;
      for (const part of message.content as { type: string; image_url?: { url: string } }[])
        if (part.type === 'image_url') urls.push(part.image_url!.url);
    }
    expect(body.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    expect(urls).toHaveLength(4);
    urls.forEach((url, i) => {
      const [head, data] = url.split(',');
      expect(head).toBe(`data:${parts[i]!.mediaType};base64`);
      expect(Buffer.from(data!, 'base64').equals(files[i]!)).toBe(true);
    });
    // What was sent is what encodeRequest (replay) rebuilds, byte for byte.
    expect(server.requests[0]?.raw).toBe(
      model.encodeRequest!(request({ model: 'gpt-4.1', messages: history(parts), images })),
    );
  });

  it('sends Anthropic base64 image blocks, in the user turn and inside the tool_result', async () => {
    const server = await anthropicServer();
    const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' });
    const { images, parts } = store(files);
    const messages = history(parts);
    await collect(model, request({ model: 'claude-sonnet-4-5', messages, images }));
    type Block = {
      type: string;
      source?: { type: string; media_type: string; data: string };
      content?: Block[];
    };
    const body = server.requests[0]?.body as { messages: { role: string; content: Block[] }[] };
    const sources: Block['source'][] = [];
    const walk = (blocks: Block[]): void => {
      for (const block of blocks) {
        if (block.type === 'image') sources.push(block.source);
        if (Array.isArray(block.content)) walk(block.content);
      }
    };
    for (const message of body.messages) walk(message.content);
    expect(sources).toHaveLength(4);
    sources.forEach((source, i) => {
      expect(source).toMatchObject({ type: 'base64', media_type: parts[i]!.mediaType });
      expect(Buffer.from(source!.data, 'base64').equals(files[i]!)).toBe(true);
    });
    expect(server.requests[0]?.raw).toBe(
      model.encodeRequest!(request({ model: 'claude-sonnet-4-5', messages, images })),
    );
  });

  it('refuses images for a text-only model before any request is sent', async () => {
    const server = await openAIServer();
    const model: ModelClient = createOpenAICompatibleModel({
      baseUrl: server.baseUrl,
      apiKey: 'k',
      provider: 'deepseek',
    });
    const { images, parts } = store(files);
    const { error } = await collectError(
      model,
      request({ model: 'deepseek-v4-flash', messages: history(parts), images }),
    );
    expect(error).toBeInstanceOf(ImagesUnsupportedError);
    expect((error as ImagesUnsupportedError).code).toBe('IMAGES_UNSUPPORTED');
    expect((error as Error).message).toMatch(/deepseek\/deepseek-v4-flash does not accept images/);
    expect(server.requests).toHaveLength(0);
  });

  it('sends a text placeholder in each image place when the user chose that', async () => {
    const server = await openAIServer();
    const model = createOpenAICompatibleModel({
      baseUrl: server.baseUrl,
      apiKey: 'k',
      provider: 'deepseek',
      imagesUnsupported: 'placeholder',
    });
    const { images, parts } = store(files);
    await collect(model, request({ model: 'deepseek-v4-flash', messages: history(parts), images }));
    const raw = server.requests[0]!.raw;
    expect(raw).not.toContain('image_url');
    expect(raw.match(/\[image omitted: /g)).toHaveLength(4);
    expect(raw).toContain(parts[0]!.sha256.slice(0, 12));
  });

  it('names its fallback per model, and encodes a request that records one as recorded, whatever its own configuration', async () => {
    const server = await openAIServer();
    const client = (options: { imagesUnsupported?: 'placeholder'; acceptsImages?: boolean }) =>
      createOpenAICompatibleModel({
        baseUrl: server.baseUrl,
        apiKey: 'k',
        provider: 'deepseek',
        ...options,
      });
    const placeholder = client({ imagesUnsupported: 'placeholder' });
    expect(placeholder.imageFallback!('deepseek-v4-flash')).toBe('placeholder');
    const { images, parts } = store(files);
    const sent = request({ model: 'deepseek-v4-flash', messages: history(parts), images });
    const wire = placeholder.encodeRequest!(sent);
    // Replayed under a client that would refuse images (default) or send them (accepts).
    const refusing = client({});
    const accepting = client({ acceptsImages: true });
    expect(refusing.imageFallback!('deepseek-v4-flash')).toBeUndefined();
    expect(accepting.imageFallback!('deepseek-v4-flash')).toBeUndefined();
    const recorded = { ...sent, imageFallback: 'placeholder' as const };
    expect(refusing.encodeRequest!(recorded)).toBe(wire);
    expect(accepting.encodeRequest!(recorded)).toBe(wire);
    expect(accepting.encodeRequest!(sent)).toContain('image_url');
  });

  it('refuses a missing or altered blob before any request', async () => {
    const server = await anthropicServer();
    const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' });
    const { parts } = store(files);
    const altered = Buffer.from(files[0]!);
    altered[altered.length - 20]! ^= 1;
    const bad: ImageBytes = {
      get: (sha256) => (sha256 === parts[0]!.sha256 ? altered : undefined),
    };
    const { error } = await collectError(
      model,
      request({ model: 'claude-sonnet-4-5', messages: history(parts), images: bad }),
    );
    expect(error).toBeInstanceOf(ImageBlobError);
    expect((error as Error).message).toContain(`${parts[0]!.sha256} was altered`);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the same image again from the cached encoding, byte for byte, and still refuses a missing or altered blob', async () => {
    const server = await anthropicServer();
    const model = createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' });
    const { images, parts } = store(files);
    const first: Message[] = [
      { role: 'user', content: 'what is this?', source: 'user', images: [parts[0]!] },
    ];
    // A new message object carrying the same image: its blocks are built anew, the base64 not.
    const second: Message[] = [
      ...first,
      { role: 'assistant', content: [{ type: 'text', text: 'a picture' }] },
      { role: 'user', content: 'and again?', source: 'user', images: [parts[0]!] },
    ];
    for (const messages of [first, second, second]) {
      await collect(model, request({ model: 'claude-sonnet-4-5', messages, images }));
    }
    expect(server.requests).toHaveLength(3);
    for (const [i, messages] of [first, second, second].entries()) {
      const raw = server.requests[i]!.raw;
      expect(raw).toBe(
        model.encodeRequest!(request({ model: 'claude-sonnet-4-5', messages, images })),
      );
      const data = [...raw.matchAll(/"data":"([^"]+)"/g)].map((match) => match[1]!);
      expect(data).toHaveLength(i === 0 ? 1 : 2);
      for (const base64 of data) expect(Buffer.from(base64, 'base64').equals(files[0]!)).toBe(true);
    }
    const altered = Buffer.from(files[0]!);
    altered[altered.length - 20]! ^= 1;
    const fresh = (): Message[] => [
      { role: 'user', content: 'once more', source: 'user', images: [parts[0]!] },
    ];
    for (const [bad, problem] of [
      [{ get: () => altered }, 'was altered'],
      [{ get: () => undefined }, 'is not in the session'],
    ] as const) {
      const { error } = await collectError(
        model,
        request({ model: 'claude-sonnet-4-5', messages: fresh(), images: bad }),
      );
      expect(error).toBeInstanceOf(ImageBlobError);
      expect((error as Error).message).toContain(parts[0]!.sha256);
      expect((error as Error).message).toContain(problem);
    }
    expect(server.requests).toHaveLength(3);
  });
});
