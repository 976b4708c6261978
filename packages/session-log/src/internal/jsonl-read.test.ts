import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserMessageBody } from '@spine/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from '../session.js';
import { createJsonlStore } from '../store-jsonl.js';
import { readFirstLine, readJsonlEvents, readJsonlRange } from './jsonl-read.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spine-read-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readJsonlEvents', () => {
  it('reads lines that cross 4 MB chunk boundaries, multi-byte characters and a line larger than a chunk', async () => {
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.create({ store, id: 'big-lines' });
    const contents: string[] = [];
    for (let i = 0; i < 90; i++) contents.push(`${i} `.padEnd(100_003 + i, i % 2 ? 'é✓' : 'ab'));
    contents.splice(45, 0, 'huge '.padEnd(5_000_000, 'ü'));
    for (const content of contents) {
      session.append('user/message', { content, source: 'user' }, { surfaceOp: { op: 'append' } });
    }
    await session.close();
    const read = readJsonlEvents(join(dir, 'big-lines.jsonl'));
    expect(read.validBytes).toBe(read.size);
    expect(read.size).toBeGreaterThan(14_000_000);
    expect(read.events.slice(1).map((event) => (event.body as UserMessageBody).content)).toEqual(
      contents,
    );
    // The range reader and the byte-level skip share the chunk reader: same events either way.
    const ranged = [...readJsonlRange(join(dir, 'big-lines.jsonl'), { fromSeq: 40, toSeq: 60 })];
    expect(ranged.map((event) => (event.body as UserMessageBody).content)).toEqual(
      contents.slice(38, 59),
    );
    const skipped = readJsonlEvents(join(dir, 'big-lines.jsonl'), { fromSeq: 48 });
    expect(skipped.lastSeq).toBe(contents.length + 1);
    expect(skipped.events.map((event) => event.seq)[0]).toBe(48);
    expect(skipped.events.slice(-1)[0]?.body).toEqual(read.events.slice(-1)[0]?.body);
    expect((readFirstLine(join(dir, 'big-lines.jsonl')) as { type: string }).type).toBe(
      'session/header',
    );
  });
});
