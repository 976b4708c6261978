import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonlHeader, readLastJsonlEvent } from './store-jsonl-peek.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `provider/model` of a request/header that names both. */
function named(event: SessionEvent): string | undefined {
  const { provider, model } = event.body as { provider?: unknown; model?: unknown };
  return typeof provider === 'string' && typeof model === 'string' && provider && model
    ? `${provider}/${model}`
    : undefined;
}

/** What the CLI asks: the provider/model of the last request that names one. */
function readLastRequestModel(dir: string, id: string, maxBytes?: number): string | undefined {
  const event = readLastJsonlEvent(dir, id, {
    type: 'request/header',
    where: (candidate) => named(candidate) !== undefined,
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
  return event && named(event);
}

function line(seq: number, type: string, body: object): string {
  return `${JSON.stringify({ seq, type, at: '2026-11-30T12:00:00.000Z', body })}\n`;
}

function sessionFile(lines: string[]): { dir: string; id: string } {
  const dir = mkdtempSync(join(tmpdir(), 'spine-peek-'));
  dirs.push(dir);
  writeFileSync(join(dir, 's1.jsonl'), lines.join(''));
  return { dir, id: 's1' };
}

const HEADER = line(1, 'session/header', { sessionId: 's1', model: 'openai-compatible/m' });

describe('readLastJsonlEvent', () => {
  it('returns the provider/model of the last request/header, across providers', () => {
    const { dir, id } = sessionFile([
      HEADER,
      line(2, 'request/header', { provider: 'openai-compatible', model: 'deepseek-v4-flash' }),
      line(3, 'assistant/message', { content: [{ type: 'text', text: '"request/header"' }] }),
      line(4, 'request/header', { provider: 'anthropic', model: 'claude-sonnet-4-5' }),
      line(5, 'assistant/message', { content: [{ type: 'text', text: 'done' }] }),
    ]);
    expect(readLastRequestModel(dir, id)).toBe('anthropic/claude-sonnet-4-5');
  });

  it('finds it behind lines longer than one read chunk and skips a torn last line', () => {
    const big = 'é'.repeat(100_000);
    const { dir, id } = sessionFile([
      HEADER,
      line(2, 'request/header', { provider: 'anthropic', model: 'claude-opus-4-1' }),
      line(3, 'tool/result', { content: big }),
      line(4, 'tool/result', { content: big }),
    ]);
    appendFileSync(
      join(dir, `${id}.jsonl`),
      '{"seq":5,"type":"request/header","body":{"provider":"dee',
    );
    expect(readLastRequestModel(dir, id)).toBe('anthropic/claude-opus-4-1');
    // Beyond the byte limit it gives up instead of reading the whole file.
    expect(readLastRequestModel(dir, id, 300_000)).toBeUndefined();
  });

  it('is undefined for a session without requests or a missing file', () => {
    const { dir, id } = sessionFile([HEADER]);
    expect(readLastRequestModel(dir, id)).toBeUndefined();
    expect(readLastRequestModel(dir, 'missing')).toBeUndefined();
  });
});

describe('readJsonlHeader', () => {
  it('reads the header from the first line only, and nothing for other files or ids', () => {
    const { dir, id } = sessionFile([HEADER, '{"seq":2,"type":"user/mess']);
    expect(readJsonlHeader(dir, id)).toEqual({ sessionId: 's1', model: 'openai-compatible/m' });
    expect(readJsonlHeader(dir, 'missing')).toBeUndefined();
    const other = sessionFile([line(1, 'user/message', { content: 'x' })]);
    expect(readJsonlHeader(other.dir, other.id)).toBeUndefined();
  });

  it('reads no file outside the store for hostile ids', () => {
    const { dir } = sessionFile([HEADER]);
    writeFileSync(join(dir, '..', `${dir.split('/').at(-1)}-outside.jsonl`), HEADER);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.constantFrom(
            '../s1',
            '/etc/passwd',
            '.',
            '..',
            '',
            `../${dir.split('/').at(-1)}-outside`,
          ),
        ),
        (id) => {
          const header = readJsonlHeader(dir, id);
          const event = readLastJsonlEvent(dir, id, { type: 'session/header' });
          if (id === 's1') {
            expect(header?.sessionId).toBe('s1');
            expect(event?.type).toBe('session/header');
          } else {
            expect(header).toBeUndefined();
            expect(event).toBeUndefined();
          }
        },
      ),
      { numRuns: 300 },
    );
    rmSync(join(dir, '..', `${dir.split('/').at(-1)}-outside.jsonl`));
  });
});
