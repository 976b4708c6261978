import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { listJsonlSessions } from './store-jsonl-list.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spine-jsonl-list-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** As root a mode of 000 does not stop a read. */
const ROOT = process.getuid?.() === 0;

async function seed(id: string, title = id): Promise<string> {
  const session = await Session.create({ store: createJsonlStore({ dir }), id, title });
  await session.close();
  return join(dir, `${id}.jsonl`);
}

/** Sets the modification time of `path` to `seconds` after the epoch (the list's order). */
function touch(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

describe('listJsonlSessions', () => {
  it('lists a good session and reports each file it cannot open with a typed reason', async () => {
    touch(await seed('good', 'a good one'), 1000);
    writeFileSync(join(dir, 'corrupt.jsonl'), 'not json at all\n{"seq":2}\n');
    writeFileSync(join(dir, 'other.jsonl'), `${JSON.stringify({ seq: 1, type: 'turn/start' })}\n`);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    mkdirSync(join(dir, 'folder.jsonl'));
    writeFileSync(join(dir, 'a b.jsonl'), '');
    symlinkSync('loop.jsonl', join(dir, 'loop.jsonl'));
    writeFileSync(join(dir, 'notes.txt'), 'not a .jsonl file: not listed');
    const locked = await seed('locked');
    chmodSync(locked, 0o000);

    const { summaries, problems } = listJsonlSessions(dir);
    const good = summaries.find((summary) => summary.id === 'good');
    expect(good).toMatchObject({
      header: { sessionId: 'good', title: 'a good one' },
      updatedAt: new Date(1000_000).toISOString(),
    });
    const byId = Object.fromEntries(problems.map((problem) => [problem.id, problem]));
    expect(byId.corrupt).toEqual({
      id: 'corrupt',
      path: join(dir, 'corrupt.jsonl'),
      reason: 'not-a-session',
    });
    expect(byId.other?.reason).toBe('not-a-session');
    expect(byId.empty?.reason).toBe('empty');
    expect(byId.folder?.reason).toBe('directory');
    expect(byId['a b']?.reason).toBe('invalid-id');
    expect(byId.loop).toEqual({
      id: 'loop',
      path: join(dir, 'loop.jsonl'),
      reason: 'unreadable',
      code: 'ELOOP',
    });
    if (!ROOT) {
      expect(byId.locked).toMatchObject({ reason: 'unreadable', code: 'EACCES' });
      expect(summaries.map((summary) => summary.id)).toEqual(['good']);
    }
    expect(Object.keys(byId).sort()).toEqual(
      ['a b', 'corrupt', 'empty', 'folder', 'loop', 'other', ...(ROOT ? [] : ['locked'])].sort(),
    );
  });

  it('orders sessions and problems newest first and reads headers only up to the limit', async () => {
    touch(await seed('old'), 1000);
    touch(await seed('middle'), 2000);
    touch(await seed('new'), 3000);
    writeFileSync(join(dir, 'bad-new.jsonl'), 'x\n');
    touch(join(dir, 'bad-new.jsonl'), 4000);
    writeFileSync(join(dir, 'bad-old.jsonl'), 'x\n');
    touch(join(dir, 'bad-old.jsonl'), 500);
    mkdirSync(join(dir, 'dir-old.jsonl'));
    touch(join(dir, 'dir-old.jsonl'), 100);

    const all = listJsonlSessions(dir);
    expect(all.summaries.map((summary) => summary.id)).toEqual(['new', 'middle', 'old']);
    expect(all.problems.map((problem) => problem.id)).toEqual(['bad-new', 'bad-old', 'dir-old']);
    // Two sessions: the headers of `old` and `bad-old` are never read; a directory is always found.
    const two = listJsonlSessions(dir, { limit: 2 });
    expect(two.summaries.map((summary) => summary.id)).toEqual(['new', 'middle']);
    expect(two.problems.map((problem) => problem.id)).toEqual(['bad-new', 'dir-old']);
  });

  it('lists nothing for a missing folder', () => {
    expect(listJsonlSessions(join(dir, 'missing'))).toEqual({ summaries: [], problems: [] });
  });

  it("is what the JSONL store's list returns, without the problems and without throwing", async () => {
    await seed('one');
    await seed('two');
    writeFileSync(join(dir, 'empty.jsonl'), '');
    symlinkSync('loop.jsonl', join(dir, 'loop.jsonl'));
    writeFileSync(join(dir, 'a b.jsonl'), '');
    const store = createJsonlStore({ dir });
    expect(await store.list()).toEqual(listJsonlSessions(dir).summaries);
    expect((await store.list({ limit: 1 })).length).toBe(1);
  });

  it('never throws and accounts for every *.jsonl file, whatever the names and bytes', () => {
    // Names a folder can hold (no "/" or NUL, short enough for any file system), with the bytes
    // of a header, a truncated one, or anything.
    const name = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 40 })
      .filter((text) => !/[/\0]/.test(text) && text !== '.' && text !== '..');
    const header = (id: string) =>
      `${JSON.stringify({ seq: 1, type: 'session/header', at: '2026-01-01T00:00:00.000Z', body: { formatVersion: 1, sessionId: id, createdAt: '2026-01-01T00:00:00.000Z' } })}\n`;
    const content = fc.oneof(
      fc.constant('header'),
      fc.constant('torn'),
      fc.uint8Array({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(name, content), { maxLength: 8, selector: ([n]) => n }),
        (files) => {
          const folder = mkdtempSync(join(dir, 'case-'));
          for (const [base, bytes] of files) {
            const path = join(folder, `${base}.jsonl`);
            const text = header(base);
            if (bytes === 'header') writeFileSync(path, text);
            else if (bytes === 'torn') writeFileSync(path, text.slice(0, text.length - 5));
            else writeFileSync(path, bytes);
          }
          const { summaries, problems } = listJsonlSessions(folder);
          const listed = [...summaries.map((s) => s.id), ...problems.map((p) => p.id)].sort();
          const onDisk = readdirSync(folder)
            .filter((file) => file.endsWith('.jsonl'))
            .map((file) => file.slice(0, -'.jsonl'.length))
            .sort();
          expect(listed).toEqual(onDisk);
          for (const summary of summaries)
            expect(summary.id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
        },
      ),
      { numRuns: 25 },
    );
  });
});
