import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, makePng, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, exampleWorkspace, isolatedEnv, runCli } from './run-cli.js';

// A model configured `images: false` with `--image-fallback placeholder` is sent a line of text
// in each image's place. The fallback is recorded with the request, so replay rebuilds the bytes
// that were sent whatever the configuration replay runs under, and `--verify` covers it.

const shot = makePng(4, 4, { seed: 5 });

describe('spine replay of a request whose images were sent as placeholders', {
  timeout: 180_000,
}, () => {
  let server: ScriptedModelServer;
  let run: CliResult;
  let noImages: NodeJS.ProcessEnv;
  let plain: NodeJS.ProcessEnv;
  let sessionDir: string;
  let id: string;

  beforeAll(async () => {
    server = await createScriptedModelServer({ replies: [{ text: 'A small square.' }] });
    ({ env: noImages, sessionDir } = isolatedEnv({ TEST_KEY: 'loopback' }));
    // The same sessions, read under a configuration that knows nothing of the model.
    ({ env: plain } = isolatedEnv({ TEST_KEY: 'loopback' }));
    const configHome = noImages.SPINE_CONFIG_HOME as string;
    mkdirSync(configHome, { recursive: true });
    writeFileSync(
      join(configHome, 'config.json'),
      JSON.stringify({
        models: [
          {
            provider: 'openai-compatible',
            id: 'test',
            contextWindow: 128_000,
            maxOutputTokens: 4096,
            images: false,
          },
        ],
      }),
    );
    const cwd = exampleWorkspace('spine-images-placeholder-');
    writeFileSync(join(cwd, 'shot.png'), shot);
    run = await runCli(
      [
        'run',
        '--model',
        'openai-compatible/test',
        '--base-url',
        server.baseUrl,
        '--api-key-env',
        'TEST_KEY',
        '--session-dir',
        sessionDir,
        '--cwd',
        cwd,
        '--image',
        'shot.png',
        '--image-fallback',
        'placeholder',
        'what is it',
      ],
      { env: noImages },
    );
    id = readdirSync(sessionDir)
      .find((name) => name.endsWith('.jsonl'))!
      .slice(0, -'.jsonl'.length);
  });

  afterAll(async () => {
    await server.close();
  });

  const replay = (env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> =>
    runCli(['replay', id, ...args, '--session-dir', sessionDir], { env });

  it('sends a placeholder and records the fallback in the request header', () => {
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!.raw;
    expect(sent).toContain('[image omitted: image/png, 4×4');
    expect(sent).not.toContain('data:image/png;base64');
    const header = readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
      .split('\n')
      .find((line) => line.includes('"type":"request/header"'))!;
    expect(JSON.parse(header).body.imageFallback).toBe('placeholder');
  });

  it('prints exactly the bytes sent, with and without the configuration that chose the fallback', async () => {
    const sent = server.requests[0]!.raw;
    for (const env of [plain, noImages]) {
      const printed = await replay(env, '--request', '1');
      expect(printed.stderr).toBe('');
      expect(printed.code).toBe(0);
      expect(printed.stdout).toBe(`${sent}\n`);
      const verified = await replay(env, '--verify');
      expect(verified.code).toBe(0);
      expect(verified.stdout).toContain('verified: all 1 requests');
    }
  });

  it('fails --verify (exit 5) when the recorded fallback is taken out of the log', async () => {
    const file = join(sessionDir, `${id}.jsonl`);
    const log = readFileSync(file, 'utf8');
    writeFileSync(file, log.replace('"imageFallback":"placeholder",', ''));
    try {
      const verified = await replay(plain, '--verify');
      expect(verified.code).toBe(5);
      expect(verified.stdout).toContain('MISMATCH');
    } finally {
      writeFileSync(file, log);
    }
  });
});
