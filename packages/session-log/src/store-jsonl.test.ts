import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionRecoveredBody } from '@spine/protocol';
import { SpineError } from '@spine/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spine-jsonl-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const surface = { surfaceOp: { op: 'append' as const } };

async function seed(id: string, messages = 3): Promise<string> {
  const session = await Session.create({ store: createJsonlStore({ dir }), id });
  for (let i = 0; i < messages; i++)
    session.append('user/message', { content: `m${i}`, source: 'user' }, surface);
  await session.close();
  return join(dir, `${id}.jsonl`);
}

async function openError(id: string): Promise<SpineError> {
  const error = await Session.open({ store: createJsonlStore({ dir }), id }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!SpineError.isInstance(error)) throw new Error(`expected a SpineError, got ${String(error)}`);
  return error;
}

/** A line without its chain value (the last key, `h`), which every sealed line must carry. */
function unseal(line: string): string {
  const match = /,"h":"[0-9a-f]{32}"\}$/.exec(line);
  expect(match, `a chain value at the end of ${line.slice(0, 80)}…`).not.toBeNull();
  return `${line.slice(0, match!.index)}}`;
}

describe('JSONL store', () => {
  it('writes one event per line in a file named after the session', async () => {
    const path = await seed('lines', 2);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([1, 2, 3]);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('truncates a torn last line and appends session/recovered with truncatedBytes', async () => {
    const path = await seed('torn');
    const torn = '{"seq":5,"type":"user/mess';
    appendFileSync(path, torn);
    const session = await Session.open({ store: createJsonlStore({ dir }), id: 'torn' });
    const recovered = session.get(5)!;
    expect(recovered.type).toBe('session/recovered');
    expect((recovered.body as SessionRecoveredBody).truncatedBytes).toBe(torn.length);
    await session.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('treats an unparseable complete last line as torn as well', async () => {
    const path = await seed('torn2');
    appendFileSync(path, '{"seq":5,"type":\n');
    const session = await Session.open({ store: createJsonlStore({ dir }), id: 'torn2' });
    expect(session.get(5)?.type).toBe('session/recovered');
    await session.close();
  });

  it('leaves a torn tail alone when opened read-only', async () => {
    const path = await seed('torn-ro');
    appendFileSync(path, '{"seq":5');
    const size = statSync(path).size;
    const session = await Session.open({
      store: createJsonlStore({ dir }),
      id: 'torn-ro',
      readOnly: true,
    });
    expect(session.lastSeq).toBe(4);
    await session.close();
    expect(statSync(path).size).toBe(size);
  });

  it('refuses a corrupt line that is not the last, naming file and line, and changes nothing', async () => {
    const path = await seed('corrupt');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[2] = '{"seq":3,"type":"user/message", oops';
    writeFileSync(path, lines.join('\n'));
    const before = readFileSync(path, 'utf8');
    const error = await openError('corrupt');
    expect(error.code).toBe('SESSION_CORRUPT');
    expect(error.message).toContain(`${path}:3`);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('refuses gaps in seqs and foreign files with a clear error', async () => {
    const path = await seed('gap');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    lines.splice(2, 1);
    writeFileSync(path, `${lines.join('\n')}\n`);
    expect((await openError('gap')).message).toMatch(/gap\.jsonl:3: seq 4 where 3 was expected/);
    writeFileSync(join(dir, 'foreign.jsonl'), 'name,size\nfoo,1\n');
    const foreign = await openError('foreign');
    expect(foreign.code).toBe('SESSION_CORRUPT');
    expect(foreign.message).toContain('foreign.jsonl:1');
    expect(readFileSync(join(dir, 'foreign.jsonl'), 'utf8')).toBe('name,size\nfoo,1\n');
  });

  it('keeps unknown non-surface events as ignorable and refuses unknown surface types by name', async () => {
    const path = await seed('unknown', 1);
    const at = new Date().toISOString();
    appendFileSync(
      path,
      `${JSON.stringify({ seq: 3, type: 'future/thing', at, body: { x: 1 } })}\n`,
    );
    const session = await Session.open({ store: createJsonlStore({ dir }), id: 'unknown' });
    expect(session.isIgnorable(3)).toBe(true);
    expect(session.get(3)?.body).toEqual({ x: 1 });
    expect(session.deriveMessages().messages).toHaveLength(1);
    session.append('user/message', { content: 'after', source: 'user' }, surface);
    await session.close();
    appendFileSync(
      path,
      `${JSON.stringify({ seq: 5, type: 'future/message', at, body: {}, surfaceOp: { op: 'append' } })}\n`,
    );
    const error = await openError('unknown');
    expect(error.code).toBe('UNKNOWN_EVENT_TYPE');
    expect(error.message).toContain('future/message');
  });

  it('recovers a stale lock left by a dead or reused pid and refuses a live one', async () => {
    const path = await seed('stale');
    writeFileSync(`${path}.lock`, '999999999\n');
    const session = await Session.open({ store: createJsonlStore({ dir }), id: 'stale' });
    const [pid, startTime] = readFileSync(`${path}.lock`, 'utf8').trim().split(' ');
    expect(pid).toBe(String(process.pid));
    expect(startTime).toMatch(/^\d+$/);
    await session.close();
    writeFileSync(`${path}.lock`, `${process.ppid}\n`);
    const error = await openError('stale');
    expect(error.code).toBe('SESSION_LOCKED');
    expect(error.message).toContain(`pid ${process.ppid}`);
    // The same pid with another start time is a different process that reused the pid.
    writeFileSync(`${path}.lock`, `${process.ppid} 1\n`);
    await (await Session.open({ store: createJsonlStore({ dir }), id: 'stale' })).close();
  });

  it('lists sessions from the header line alone, even when the rest of a file is damaged', async () => {
    const path = await seed('listed', 1);
    appendFileSync(path, 'garbage that would not parse\n'.repeat(1000));
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    writeFileSync(join(dir, 'empty.jsonl'), '');
    const list = await createJsonlStore({ dir }).list();
    expect(list.map((summary) => summary.id)).toEqual(['listed']);
    expect(list[0]!.sizeBytes).toBe(statSync(path).size);
  });

  it('buffers writes with fsync never until flush, and per-turn until checkpoint', async () => {
    for (const fsync of ['never', 'per-turn'] as const) {
      const store = createJsonlStore({ dir, fsync, flushIntervalMs: 60_000 });
      const session = await Session.create({ store, id: `buffered-${fsync}` });
      const path = join(dir, `buffered-${fsync}.jsonl`);
      const size = statSync(path).size;
      session.append('turn/start', {}, { turn: 1 });
      expect(statSync(path).size).toBe(size);
      if (fsync === 'never') await session.flush();
      else session.checkpoint();
      expect(statSync(path).size).toBeGreaterThan(size);
      await session.close();
    }
  });

  it('writes every pending line before a tool/started append returns (the write-ahead of a tool)', async () => {
    const lines = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n').length;
    const store = createJsonlStore({ dir, flushIntervalMs: 60_000 });
    const session = await Session.create({ store, id: 'ahead' });
    const path = join(dir, 'ahead.jsonl');
    session.append('turn/start', {}, { turn: 1 });
    expect(lines(path)).toBe(1);
    session.append(
      'tool/started',
      { toolCallId: 'c1', toolName: 'bash', arguments: '{}' },
      { turn: 1 },
    );
    expect(lines(path)).toBe(3);
    await session.close();
    // An adopter can name other types, or none.
    const none = createJsonlStore({ dir, flushIntervalMs: 60_000, durableTypes: ['turn/start'] });
    const other = await Session.create({ store: none, id: 'other' });
    const otherPath = join(dir, 'other.jsonl');
    other.append(
      'tool/started',
      { toolCallId: 'c1', toolName: 'bash', arguments: '{}' },
      { turn: 1 },
    );
    expect(lines(otherPath)).toBe(1);
    other.append('turn/start', {}, { turn: 1 });
    expect(lines(otherPath)).toBe(3);
    await other.close();
  });

  it('writes buffered events on a short timer and when the size threshold is reached', async () => {
    const store = createJsonlStore({ dir, fsync: 'never', flushIntervalMs: 5, flushBytes: 1000 });
    const session = await Session.create({ store, id: 'timer' });
    const path = join(dir, 'timer.jsonl');
    session.append('turn/start', {}, { turn: 1 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(2);
    session.append('user/message', { content: 'x'.repeat(2000), source: 'user' }, surface);
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(3);
    await session.close();
  });

  it('counts nested message text toward the size threshold and writes through with flushBytes 0', async () => {
    const store = createJsonlStore({
      dir,
      fsync: 'never',
      flushIntervalMs: 60_000,
      flushBytes: 1000,
    });
    const session = await Session.create({ store, id: 'nested' });
    const path = join(dir, 'nested.jsonl');
    session.append('turn/start', {}, { turn: 1 });
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(1);
    const text = 'y'.repeat(2000);
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text }], finishReason: 'stop' },
      surface,
    );
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(3);
    await session.close();
    const through = createJsonlStore({ dir, fsync: 'never', flushBytes: 0 });
    const direct = await Session.create({ store: through, id: 'through' });
    direct.append('turn/start', {}, { turn: 1 });
    expect(readFileSync(join(dir, 'through.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(2);
    await direct.close();
  });

  it('writes each line as JSON.stringify does, across groups and for lines over the group or arena size', async () => {
    const store = createJsonlStore({ dir, fsync: 'never', flushBytes: 4096 });
    const session = await Session.create({ store, id: 'bytes' });
    const contents = ['plain', 'quote " slash \\ newline \n tab \t', 'é😀\ud800', 'x'.repeat(3000)];
    contents.push('y'.repeat(2 * 1024 * 1024), ...Array.from({ length: 50 }, (_, i) => `m${i}`));
    const appended = contents.map((content) =>
      session.append('user/message', { content, source: 'user' }, surface),
    );
    await session.close();
    const lines = readFileSync(join(dir, 'bytes.jsonl'), 'utf8').split('\n').slice(1, -1);
    expect(lines.map(unseal)).toEqual(appended.map((event) => JSON.stringify(event)));
  });

  it('keeps interleaved sessions apart and in order while they share the encoder arena', async () => {
    const store = createJsonlStore({ dir, fsync: 'never', flushIntervalMs: 60_000 });
    const sessions = [
      await Session.create({ store, id: 'a' }),
      await Session.create({ store, id: 'b' }),
    ];
    for (let i = 0; i < 300; i++) {
      const content = `${i}:${'z'.repeat(i % 7 === 0 ? 900 : 10)}`;
      sessions[i % 3 === 0 ? 1 : 0]!.append('user/message', { content, source: 'user' }, surface);
    }
    for (const session of sessions) await session.close();
    for (const [index, id] of ['a', 'b'].entries()) {
      const lines = readFileSync(join(dir, `${id}.jsonl`), 'utf8')
        .trimEnd()
        .split('\n')
        .slice(1);
      const expected = sessions[index]!.events({ from: 2 }).map((event) => JSON.stringify(event));
      expect(lines.map(unseal)).toEqual(expected);
    }
  });

  it('refuses session ids that are not safe file names', async () => {
    const store = createJsonlStore({ dir });
    await expect(Session.create({ store, id: '../escape' })).rejects.toThrow(/safe file name/);
    expect(await store.exists('../escape')).toBe(false);
    await expect(Session.open({ store, id: '../escape' })).rejects.toThrow(/not found/);
  });

  it('reads custom surface types back when they are registered on open', async () => {
    const note = {
      type: 'note/pinned',
      surface: true,
      project: (event: { body: unknown }) => [
        {
          role: 'user' as const,
          content: String((event.body as { text: string }).text),
          source: 'note',
        },
      ],
    };
    const store = createJsonlStore({ dir });
    const session = await Session.create({ store, id: 'custom', eventTypes: [note] });
    session.append('note/pinned', { text: 'remember' }, surface);
    await session.close();
    await expect(Session.open({ store, id: 'custom' })).rejects.toThrow(/note\/pinned/);
    const reopened = await Session.open({ store, id: 'custom', eventTypes: [note] });
    expect(reopened.deriveMessages().messages).toEqual([
      { role: 'user', content: 'remember', source: 'note' },
    ]);
    await reopened.close();
  });
});
