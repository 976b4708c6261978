import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, makeGif, makePng, makePngBomb } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnthropicServer, createAnthropicServer } from './anthropic-server.js';
import { type CliResult, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const KEY = 'sk-ant-loopback-images';
const shot = makePng(64, 48, { noise: true, seed: 3 });
const diagram = makeGif(20, 10);
const error = makePng(32, 32, { seed: 9 });

function sha(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

type Block = { type: string; source?: { data: string; media_type: string }; content?: Block[] };

/** Every image block's bytes in an Anthropic request body, in order. */
function imagesIn(body: { messages: { content: Block[] }[] }): Buffer[] {
  const found: Buffer[] = [];
  const walk = (blocks: Block[]): void => {
    for (const block of blocks) {
      if (block.type === 'image') found.push(Buffer.from(block.source!.data, 'base64'));
      if (Array.isArray(block.content)) walk(block.content);
    }
  };
  for (const message of body.messages) if (Array.isArray(message.content)) walk(message.content);
  return found;
}

describe('spine run with images', { timeout: 180_000 }, () => {
  let server: AnthropicServer;
  let result: CliResult;
  let env: NodeJS.ProcessEnv;
  let sessionDir: string;
  let id: string;

  beforeAll(async () => {
    server = await createAnthropicServer({
      apiKey: KEY,
      replies: [
        { toolUses: [{ id: 'toolu_read', name: 'read', input: { path: 'screens/error.png' } }] },
        { text: 'The dialog says the build failed.' },
      ],
    });
    ({ env, sessionDir } = isolatedEnv({ ANTHROPIC_API_KEY: KEY }));
    const cwd = exampleWorkspace('spine-images-');
    writeFileSync(join(cwd, 'shot.png'), shot);
    writeFileSync(join(cwd, 'diagram.gif'), diagram);
    mkdirSync(join(cwd, 'screens'));
    writeFileSync(join(cwd, 'screens', 'error.png'), error);
    const args = ['--model', 'anthropic/claude-sonnet-4-5', '--base-url', server.baseUrl];
    result = await runCli(
      [
        'run',
        ...args,
        '--cwd',
        cwd,
        '--approval',
        'never-ask',
        '--image',
        'shot.png',
        'What does @diagram.gif show?',
      ],
      { env },
    );
    id = readdirSync(sessionDir)
      .find((name) => name.endsWith('.jsonl'))!
      .slice(0, -6);
  });

  afterAll(async () => {
    await server.close();
  });

  it('sends the attached, mentioned and read images byte for byte and stores each once', () => {
    expect(result.code).toBe(0);
    expect(server.refused).toEqual([]);
    const [first, second] = server.requests;
    expect(imagesIn(first!.body)).toEqual([shot, diagram]);
    expect(imagesIn(second!.body)).toEqual([shot, diagram, error]);
    const blobs = readdirSync(join(sessionDir, `${id}.blobs`)).sort();
    expect(blobs).toEqual([sha(shot), sha(diagram), sha(error)].sort());
    for (const name of blobs) {
      expect(sha(readFileSync(join(sessionDir, `${id}.blobs`, name)))).toBe(name);
    }
    // The log references the images by hash; no image byte is in it.
    const log = readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8');
    expect(log).toContain(sha(shot));
    expect(log).not.toContain(shot.toString('base64').slice(0, 64));
  });

  it('replays with --verify, and names the event and blob whose byte was flipped', async () => {
    const verified = await runCli(['replay', id, '--verify'], { env });
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('verified: all 2 requests');
    const path = join(sessionDir, `${id}.blobs`, sha(diagram));
    const flipped = Buffer.from(diagram);
    flipped[8]! ^= 0x01;
    writeFileSync(path, flipped);
    const altered = await runCli(['replay', id, '--verify'], { env });
    expect(altered.code).toBe(5);
    expect(altered.stdout).toMatch(
      new RegExp(`MISMATCH images\\[1\\] \\(event seq \\d+\\) blob ${sha(diagram)} altered`),
    );
    writeFileSync(path, diagram);
    expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
  });
});

/** `spine run --image <file> look` against an Anthropic model at `baseUrl`. */
function runWithImage(
  baseUrl: string,
  cwd: string,
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  const model = ['--model', 'anthropic/claude-sonnet-4-5', '--base-url', baseUrl];
  return runCli(['run', ...model, '--cwd', cwd, '--image', file, 'look'], {
    env,
    timeoutMs: 60_000,
  });
}

describe('spine run refuses images it cannot send', { timeout: 120_000 }, () => {
  it('refuses a text-only model before any request (exit 2)', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'never' }] });
    try {
      const { env, sessionDir } = isolatedEnv({ OPENAI_API_KEY: 'loopback' });
      const cwd = exampleWorkspace('spine-images-text-');
      writeFileSync(join(cwd, 'shot.png'), shot);
      const run = await runCli(
        ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, '--image', 'shot.png', 'look'],
        { env },
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('deepseek-v4-flash does not accept images (shot.png)');
      expect(run.stderr).toContain('--image-fallback placeholder');
      expect(server.requests).toHaveLength(0);
      expect(() => readdirSync(sessionDir)).toThrow();
    } finally {
      await server.close();
    }
  });

  it('refuses hostile files with a clear error (exit 2) and sends nothing', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'never' }] });
    try {
      const { env } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
      const cwd = exampleWorkspace('spine-images-hostile-');
      const pngHeader = shot.subarray(0, 8);
      writeFileSync(
        join(cwd, 'page.png'),
        Buffer.concat([
          pngHeader,
          Buffer.from('<!doctype html><html><body><p>Not an image</p></body></html>'),
        ]),
      );
      writeFileSync(join(cwd, 'tall.png'), makePng(1, 100_000));
      writeFileSync(join(cwd, 'bomb.png'), makePngBomb(60_000, 60_000));
      writeFileSync(join(cwd, 'cut.png'), shot.subarray(0, shot.length - 40));
      const cases: [string, RegExp][] = [
        ['page.png', /page\.png was refused: the image\/png header is malformed/],
        ['tall.png', /tall\.png was refused: it declares 1×100000 pixels/],
        ['bomb.png', /bomb\.png was refused: it declares 60000×60000 pixels/],
        ['cut.png', /cut\.png was refused: the image\/png file is incomplete/],
      ];
      for (const [file, message] of cases) {
        const run = await runWithImage(server.baseUrl, cwd, file, env);
        expect(run.stderr).toMatch(message);
        expect(run.code).toBe(2);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('refuses a device, a FIFO without a writer and a symlink to /dev/zero at once, reading nothing (exit 2)', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'never' }] });
    try {
      const { env } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
      const cwd = exampleWorkspace('spine-images-devices-');
      execFileSync('mkfifo', [join(cwd, 'pipe.png')]);
      symlinkSync('/dev/zero', join(cwd, 'zero.png'));
      // A sparse file past the cap: refused by what is read, never read whole.
      writeFileSync(join(cwd, 'huge.png'), shot);
      truncateSync(join(cwd, 'huge.png'), 64 * 1024 * 1024);
      const cases: [string, RegExp][] = [
        ['/dev/zero', /\/dev\/zero was refused: not a regular file/],
        ['/dev/urandom', /\/dev\/urandom was refused: not a regular file/],
        ['pipe.png', /pipe\.png was refused: not a regular file/],
        ['zero.png', /zero\.png was refused: not a regular file/],
        ['huge.png', /huge\.png was refused: 67108864 bytes is over the 5242880-byte cap/],
      ];
      for (const [file, message] of cases) {
        const started = Date.now();
        const run = await runWithImage(server.baseUrl, cwd, file, env);
        expect(run.stderr).toMatch(message);
        expect(run.code).toBe(2);
        // Refused before reading: no waiting on the FIFO, no gigabytes from the device.
        expect(Date.now() - started).toBeLessThan(45_000);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
