import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { verifyJsonlLog, verifyJsonlLogInChunks } from './verify-jsonl.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const surface = { surfaceOp: { op: 'append' as const } };
let original = '';
const path = join(dir, 'chained.jsonl');

/** A realistic log: turns with tool calls, events no request carries, and a final answer. */
async function writeLog(id: string, options: { chain?: boolean } = {}): Promise<Session> {
  const store = createJsonlStore({ dir, fsync: 'never', ...options });
  const session = await Session.create({ store, id, snapshots: false });
  for (let turn = 1; turn <= 4; turn++) {
    session.append('turn/start', {}, { turn });
    session.append(
      'user/message',
      { content: `fix "bug" ${turn}\nplease é😀`, source: 'user' },
      { turn, ...surface },
    );
    const call = { type: 'tool-call', id: `c${turn}`, name: 'read', arguments: '{"path":"a.ts"}' };
    session.append(
      'assistant/message',
      { content: [call], finishReason: 'tool-calls' },
      { turn, ...surface },
    );
    session.append(
      'tool/started',
      { toolCallId: `c${turn}`, toolName: 'read', arguments: '{}' },
      { turn },
    );
    session.append(
      'tool/result',
      { toolCallId: `c${turn}`, toolName: 'read', content: 'line 1\nline "2"', isError: false },
      { turn, ...surface },
    );
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text: `done ${turn}` }], finishReason: 'stop' },
      { turn, ...surface },
    );
    session.append('turn/end', { reason: 'completed' }, { turn });
  }
  return session;
}

beforeAll(async () => {
  const session = await writeLog('chained');
  await session.close();
  original = readFileSync(path, 'utf8');
});

const linesOf = (text: string): string[] => text.slice(0, -1).split('\n');
const join_ = (lines: string[]): string => `${lines.join('\n')}\n`;

describe('verifyJsonlLog', () => {
  it('accepts an untouched chained log, from its first line', () => {
    const result = verifyJsonlLog(path);
    expect(result).toMatchObject({ ok: true, events: 29, chainedFrom: 1 });
    expect(result.head).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives the same verdict whatever the read size (lines across reads, lines longer than one)', () => {
    const whole = verifyJsonlLog(path);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8192 }), (chunkBytes) => {
        expect(verifyJsonlLogInChunks(path, chunkBytes)).toEqual(whole);
      }),
      { numRuns: 100 },
    );
  });

  it('names the first flipped, deleted, duplicated, reordered or forged line anywhere, the final answer included', () => {
    const lines = linesOf(original);
    const tampered = join(dir, 'tampered.jsonl');
    fc.assert(
      fc.property(
        fc.nat(lines.length - 1),
        fc.constantFrom('flip', 'delete', 'duplicate', 'reorder', 'forge'),
        fc.nat(10_000),
        fc.integer({ min: 1, max: 127 }),
        fc.integer({ min: 1, max: 4096 }),
        (index, kind, where, xor, chunkBytes) => {
          const copy = lines.slice();
          let expectedLine = index + 1;
          let expectedKinds: string[];
          if (kind === 'flip') {
            const line = copy[index] as string;
            const at = where % line.length;
            const flipped = String.fromCharCode(line.charCodeAt(at) ^ xor);
            if (flipped === '\n' || flipped === line[at]) return;
            copy[index] = line.slice(0, at) + flipped + line.slice(at + 1);
            expectedKinds = ['altered', 'corrupt', 'removed', 'inserted', 'reordered', 'unchained'];
          } else if (kind === 'delete') {
            if (index === lines.length - 1) return; // the tail is covered by snapshots (below)
            copy.splice(index, 1);
            expectedKinds = ['removed'];
          } else if (kind === 'duplicate') {
            copy.splice(index + 1, 0, copy[index] as string);
            expectedLine = index + 2;
            expectedKinds = ['inserted'];
          } else if (kind === 'reorder') {
            if (index === lines.length - 1) return;
            [copy[index], copy[index + 1]] = [copy[index + 1] as string, copy[index] as string];
            expectedKinds = ['reordered'];
          } else {
            // A well-formed event with the right seq, sealed with a made-up value.
            const seq = index + 1;
            copy[index] =
              `{"seq":${seq},"type":"user/message","at":"2026-12-01T00:00:00.000Z","body":{"content":"forged","source":"user"},"h":"${'0'.repeat(32)}"}`;
            expectedKinds = ['altered'];
          }
          writeFileSync(tampered, join_(copy));
          // Small reads put lines across chunk boundaries and lines longer than a chunk.
          const result = verifyJsonlLogInChunks(tampered, chunkBytes);
          expect(result.ok).toBe(false);
          expect(result.problem?.line).toBe(expectedLine);
          expect(expectedKinds).toContain(result.problem?.kind);
          expect(result.problem?.message).toMatch(/event \d+/);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('finds events cut from the end up to the snapshot, and a log rewritten and re-sealed before it', async () => {
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.open({ store, id: 'chained', snapshots: false });
    await session.snapshot();
    await session.close();
    const lines = linesOf(readFileSync(path, 'utf8'));
    const last = lines.length;
    writeFileSync(path, join_(lines.slice(0, -2)));
    expect(verifyJsonlLog(path).problem).toMatchObject({ kind: 'truncated', seq: last - 1 });
    writeFileSync(path, join_(lines));
    expect(verifyJsonlLog(path).ok).toBe(true);
  });

  it('accepts a log written before the chain existed, and one whose chain starts part-way', async () => {
    const old = await writeLog('unchained', { chain: false });
    await old.close();
    expect(verifyJsonlLog(join(dir, 'unchained.jsonl'))).toMatchObject({
      ok: true,
      events: 29,
      head: '',
    });
    expect(verifyJsonlLog(join(dir, 'unchained.jsonl')).chainedFrom).toBeUndefined();
    const store = createJsonlStore({ dir, fsync: 'never' });
    const resumed = await Session.open({ store, id: 'unchained', snapshots: false });
    resumed.append('user/message', { content: 'more', source: 'user' }, surface);
    await resumed.close();
    expect(verifyJsonlLog(join(dir, 'unchained.jsonl'))).toMatchObject({
      ok: true,
      events: 30,
      chainedFrom: 30,
    });
    // Stripping the chain value from a line after the chain began is named.
    const lines = linesOf(original);
    const strip = (line: string): string => line.replace(/,"h":"[0-9a-f]{32}"\}$/, '}');
    const stripped = join(dir, 'stripped.jsonl');
    writeFileSync(stripped, join_(lines.map((line, index) => (index === 5 ? strip(line) : line))));
    expect(verifyJsonlLog(stripped).problem).toMatchObject({ kind: 'unchained', seq: 6, line: 6 });
    writeFileSync(stripped, join_(lines.map((line, index) => (index < 3 ? strip(line) : line))));
    expect(verifyJsonlLog(stripped).problem).toMatchObject({ kind: 'unchained', seq: 3, line: 3 });
  });

  it('keeps the chain across reopens, so a resumed session verifies end to end', async () => {
    const store = createJsonlStore({ dir, fsync: 'never' });
    for (let round = 0; round < 3; round++) {
      const session = await Session.open({
        store,
        id: 'chained',
        history: round === 1 ? 'lazy' : 'full',
      });
      session.append('user/message', { content: `round ${round}`, source: 'user' }, surface);
      await session.close();
    }
    expect(verifyJsonlLog(path)).toMatchObject({ ok: true, events: 32, chainedFrom: 1 });
  });
});
