import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLastRequestModel } from './store.js';

function line(seq: number, type: string, body: object): string {
  return `${JSON.stringify({ seq, type, at: '2026-11-30T12:00:00.000Z', body })}\n`;
}

function sessionFile(lines: string[]): { dir: string; id: string } {
  const dir = mkdtempSync(join(tmpdir(), 'spine-store-'));
  writeFileSync(join(dir, 's1.jsonl'), lines.join(''));
  return { dir, id: 's1' };
}

const HEADER = line(1, 'session/header', { sessionId: 's1', model: 'openai-compatible/m' });

describe('readLastRequestModel', () => {
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
