// `read` of an image file asks the model in use at each call: a model switch after the tool
// runtime was built (`/model` in the REPL, `session/config` over ACP; both assign the resolved
// model to the wired one) turns image content on or off for the next read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatibleModel } from '@spine/llm';
import { createMemoryStore, Session } from '@spine/session-log';
import { makePng } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, fixedModel, wireAgent } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('read of an image after a model switch', () => {
  it('returns image content only while the current model accepts images', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'spine-read-switch-'));
    dirs.push(cwd);
    const png = makePng(24, 16, { noise: true });
    writeFileSync(join(cwd, 'shot.png'), png);
    const session = await Session.create({ store: createMemoryStore(), cwd, model: 'openai/m' });
    // No request is ever sent: the tools are called directly.
    const client = createOpenAICompatibleModel({
      baseUrl: 'http://127.0.0.1:9',
      provider: 'openai',
      allowNoApiKey: true,
    });
    const config = {
      ...defaultConfig({}),
      sessionDir: join(cwd, '.sessions'),
      approval: 'never-ask' as const,
      lsp: { enabled: false },
      web: { enabled: false },
    };
    const wired = await wireAgent({ config, cwd, session, model: fixedModel(client, 'vision') });
    const read = async (id: string) => {
      const [result] = await wired.runtime.run([
        { type: 'tool-call', id, name: 'read', arguments: '{"path":"shot.png"}' },
      ]);
      return result!;
    };
    try {
      const first = await read('c1');
      expect(first.images).toHaveLength(1);
      expect(Buffer.from(session.blobs!.get(first.images![0]!.sha256)!).equals(png)).toBe(true);
      // What `/model` and ACP's applyModel do: the newly resolved model replaces the wired one.
      Object.assign(wired.model, { ...fixedModel(client, 'text-only'), acceptsImages: false });
      const second = await read('c2');
      expect(second.images).toBeUndefined();
      expect(second.content).toMatch(/shot\.png is a binary file/);
      Object.assign(wired.model, fixedModel(client, 'vision-again'));
      const third = await read('c3');
      expect(third.images?.[0]?.sha256).toBe(first.images![0]!.sha256);
    } finally {
      await wired.close();
      await session.close();
    }
  });
});
