// A `data:` line that is not JSON, inserted anywhere before the terminal event of a recorded
// stream, must break the attempt (STREAM_BROKEN, retryable): skipping it would hand on an answer
// with a hole (lost text, or a tool call run with half its arguments). Served byte for byte by
// one loopback server, cut into network writes at generated offsets.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isModelError, type ModelClient } from '@spine/protocol';
import { type LoopbackServer, sseFrame, startSseServer, writeSseHead } from '@spine/test-utils';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicModel, createDeepSeekModel } from '../src/index.js';
import { fixtureLines } from './fixture-server.js';
import { collect, collectError, request } from './helpers.js';

const RUNS = Number(process.env.SPINE_FUZZ_RUNS ?? 150);

const chunkFiles = readdirSync(fileURLToPath(new URL('./fixtures/', import.meta.url))).filter(
  (name) => name.endsWith('.chunks.txt'),
);
const anthropicFiles = chunkFiles.filter((name) => name.startsWith('anthropic-'));
const openAIFiles = chunkFiles.filter((name) => !name.startsWith('anthropic-'));

/** The frames of a recorded stream as its provider sends them, the terminal one last. */
function framesOf(name: string): string[] {
  const lines = fixtureLines(name);
  if (name.startsWith('anthropic-'))
    return lines.map((line) => sseFrame(line, (JSON.parse(line) as { type: string }).type));
  return [...lines.map((line) => sseFrame(line)), sseFrame('[DONE]')];
}

/** One line of data that is not JSON (nor `[DONE]`), without line breaks. */
const notJson = fc
  .oneof(
    fc.constantFrom(
      '{this is not json}',
      '{"id":"x","choices":[{"index":0,"delta":{"content":"IMPORTANT: do not deploy',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo',
      '',
      'undefined',
      '<html>',
      '{"a":1}}',
    ),
    fc.string({ maxLength: 40 }),
  )
  .map((text) => text.replace(/[\r\n]/g, ' '))
  .filter((text) => text !== '[DONE]' && !isJson(text));

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The body the server answers the current run with, as network writes. */
let pieces: string[] = [];
let server: LoopbackServer;

beforeAll(async () => {
  server = await startSseServer(async (_request, response) => {
    writeSseHead(response);
    for (const piece of pieces) response.write(piece);
    response.end();
  });
});
afterAll(() => server.close());

function cut(text: string, offsets: number[]): string[] {
  const at = [...new Set(offsets.map((offset) => offset % (text.length + 1)))].sort(
    (a, b) => a - b,
  );
  const out: string[] = [];
  let start = 0;
  for (const end of [...at, text.length]) {
    if (end > start) out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

const wires: [string, string[], () => ModelClient, string][] = [
  [
    'OpenAI-compatible',
    openAIFiles,
    () => createDeepSeekModel({ baseUrl: server.baseUrl, apiKey: 'k', idleTimeoutMs: 5000 }),
    'deepseek-v4-flash',
  ],
  [
    'Anthropic',
    anthropicFiles,
    () => createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k', idleTimeoutMs: 5000 }),
    'claude-sonnet-4-5',
  ],
];

describe.each(wires)('a data line that is not JSON (%s wire)', (wire, files, client, model) => {
  it.each(files)('%s completes untouched', async (name) => {
    pieces = [framesOf(name).join('')];
    const { finish } = await collect(client(), request({ model }));
    expect(finish.warnings ?? []).not.toContainEqual(expect.stringMatching(/JSON/));
  });

  it('inserted anywhere before the terminal event always breaks the attempt', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...files),
        fc.nat(),
        notJson,
        fc.constantFrom(undefined, 'content_block_delta', 'future_event'),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (name, where, garbage, event, offsets) => {
          const frames = framesOf(name);
          // Anywhere up to and including just before the terminal frame.
          const at = where % frames.length;
          const line = sseFrame(garbage, wire === 'Anthropic' ? event : undefined);
          frames.splice(at, 0, line);
          pieces = cut(frames.join(''), offsets);
          const { error, events } = await collectError(client(), request({ model }));
          expect(isModelError(error) && error.code).toBe('STREAM_BROKEN');
          expect(isModelError(error) && error.retryable).toBe(true);
          expect(events.some((e) => e.type === 'finish')).toBe(false);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('lines that stay harmless', () => {
  it('skips an Anthropic ping whatever its data, and comment lines anywhere', async () => {
    const frames = framesOf('anthropic-text.chunks.txt');
    frames.splice(1, 0, 'event: ping\ndata: not json at all\n\n', ': keep-alive\n\n');
    frames.splice(4, 0, ': {"broken"\n\n');
    pieces = [frames.join('')];
    const { finish } = await collect(
      createAnthropicModel({ baseUrl: server.baseUrl, apiKey: 'k' }),
      request({ model: 'claude-sonnet-4-5' }),
    );
    expect(finish.finishReason).toBe('stop');
  });

  it('reads nothing after [DONE], even in the same network write', async () => {
    const frames = framesOf('deepseek-text.chunks.txt');
    pieces = [`${frames.join('')}data: {not json\n\n`];
    const { finish } = await collect(
      createDeepSeekModel({ baseUrl: server.baseUrl, apiKey: 'k' }),
      request(),
    );
    expect(finish.finishReason).toBe('stop');
  });
});
