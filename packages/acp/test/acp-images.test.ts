// Image prompts over ACP, with the SDK's own client: advertised only for a model that takes
// images, passed to the model byte for byte and stored once in the session's blob folder; a
// text-only model refuses them before any request.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePng } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Fixture, fixture, type Peer } from './acp-harness.js';

let fx: Fixture | undefined;
let peer: Peer | undefined;
afterEach(async () => {
  await peer?.close();
  await fx?.cleanup();
  peer = undefined;
  fx = undefined;
});

const png = makePng(24, 16, { noise: true });
const sha256 = createHash('sha256').update(png).digest('hex');
const vision = {
  model: 'openai-compatible/vision-test',
  models: [
    {
      provider: 'openai-compatible',
      id: 'vision-test',
      contextWindow: 128_000,
      maxOutputTokens: 4096,
      images: true,
    },
  ],
};

describe('image prompts over ACP', () => {
  it('advertises images for a model that takes them and sends the bytes as the client gave them', async () => {
    fx = await fixture([{ text: 'A noisy picture.' }]);
    peer = await connect(fx.config(vision));
    const init = await peer.agent.request('initialize', { protocolVersion: 1 });
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const response = await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', mimeType: 'image/png', data: png.toString('base64') },
      ],
    });
    expect(response.stopReason).toBe('end_turn');
    const body = fx.server.requests[0]!.body as { messages: { role: string; content: unknown }[] };
    const user = body.messages.find((message) => Array.isArray(message.content)) as {
      content: { type: string; image_url?: { url: string } }[];
    };
    expect(user.content[0]).toEqual({ type: 'text', text: 'What is this?' });
    expect(user.content[1]?.image_url?.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
    expect(readdirSync(join(fx.sessionDir, `${sessionId}.blobs`))).toEqual([sha256]);
    const log = readFileSync(join(fx.sessionDir, `${sessionId}.jsonl`), 'utf8');
    expect(log).toContain(`"sha256":"${sha256}"`);
  });

  it('does not advertise images for a text-only model and refuses one before any request', async () => {
    fx = await fixture([{ text: 'never sent' }]);
    peer = await connect(fx.config());
    const init = await peer.agent.request('initialize', { protocolVersion: 1 });
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: false });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    await expect(
      peer.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'image', mimeType: 'image/png', data: png.toString('base64') }],
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('deepseek-v4-flash does not accept images'),
    });
    expect(fx.server.requests).toHaveLength(0);
  });
});
