import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { FORMAT_VERSION, SpineError } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { formatVersionOf, MIGRATIONS, migrateEvents, migrateV0ToV1 } from './migrations.js';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';

const fixture = new URL('../test/fixtures/v0-session.jsonl', import.meta.url);
const v0Events = (): SessionEvent[] =>
  readFileSync(fixture, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as SessionEvent);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('has a migration for every version below the current one', () => {
    for (let version = 0; version < FORMAT_VERSION; version++)
      expect(MIGRATIONS[version]).toBeTypeOf('function');
  });

  it('reads a header without formatVersion as version 0', () => {
    expect(formatVersionOf(v0Events()[0]!)).toBe(0);
  });

  it('migrates the version 0 fixture to version 1 without mutating its input', () => {
    const input = v0Events();
    const snapshot = JSON.stringify(input);
    const output = migrateV0ToV1(input);
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(output.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(output[0]!.body).toEqual({
      formatVersion: 1,
      sessionId: 'legacy',
      createdAt: '2025-01-02T03:04:05.000Z',
      cwd: '/work/legacy',
      title: 'draft format',
    });
    expect(output[1]).toMatchObject({
      type: 'user/message',
      body: { content: 'list the files', source: 'user' },
      surfaceOp: { op: 'append' },
    });
    expect(output[2]!.body).toEqual({
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool-call', id: 't1', name: 'ls', arguments: '{"path":"."}' },
      ],
      finishReason: 'tool-calls',
    });
    expect(output[3]!.body).toEqual({
      toolCallId: 't1',
      toolName: 'ls',
      content: 'a.ts\nb.ts',
      isError: false,
    });
    expect(output[4]).not.toHaveProperty('surfaceOp');
    expect(output[4]).not.toHaveProperty('visible');
    expect(migrateEvents(input, 0)).toEqual(output);
    expect(() => migrateEvents(input, -1)).toThrow(RangeError);
  });

  it('opens a version 0 file read-only (migrated in memory), refuses to write it, and forks it to version 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-migrate-'));
    dirs.push(dir);
    copyFileSync(fixture, join(dir, 'legacy.jsonl'));
    const store = createJsonlStore({ dir });
    const error = await Session.open({ store, id: 'legacy' }).catch((caught: unknown) => caught);
    expect(SpineError.isInstance(error) && error.code).toBe('UNSUPPORTED_FORMAT');
    const legacy = await Session.open({ store, id: 'legacy', readOnly: true });
    expect(legacy.deriveMessages().messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
    const copy = await legacy.fork(5, { id: 'legacy-v1' });
    expect(copy.header.formatVersion).toBe(FORMAT_VERSION);
    expect(copy.header.parent).toEqual({ sessionId: 'legacy', atSeq: 5 });
    await copy.close();
    await legacy.close();
    const reopened = await Session.open({ store, id: 'legacy-v1' });
    expect(reopened.deriveMessages().messages).toEqual(legacy.deriveMessages().messages);
    await reopened.close();
  });

  it('refuses a format version newer than this reader knows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-migrate-'));
    dirs.push(dir);
    const store = createJsonlStore({ dir });
    const session = await Session.create({ store, id: 'future' });
    await session.close();
    const path = join(dir, 'future.jsonl');
    const header = JSON.parse(readFileSync(path, 'utf8'));
    header.body.formatVersion = FORMAT_VERSION + 1;
    writeFileSync(path, `${JSON.stringify(header)}\n`);
    await expect(Session.open({ store, id: 'future', readOnly: true })).rejects.toThrow(
      /upgrade @spine\/session-log/,
    );
  });
});
