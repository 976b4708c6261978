import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpineError } from '@spine/protocol';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createSqliteStore } from './store-sqlite.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spine-sqlite-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite store', () => {
  it('reports a database file it cannot open as STORE_UNAVAILABLE and opens it once fixed', async () => {
    // A folder where the database file belongs: SQLite cannot open it, whoever runs the test.
    const path = join(dir, 'sessions.db');
    mkdirSync(path);
    const store = createSqliteStore({ path });
    const refused = await store.exists('a').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      name: 'StoreUnavailableError',
      code: 'STORE_UNAVAILABLE',
      systemCode: 'SQLITE_CANTOPEN',
      path,
      cause: expect.objectContaining({ code: 'SQLITE_CANTOPEN' }),
      message: `Cannot open the session database: the SQLite database ${path} failed with SQLITE_CANTOPEN (unable to open database file); make sure this user may read, write and search its folder, or pass another path`,
    });
    expect(SpineError.isInstance(refused)).toBe(true);
    // The failed open is not kept: once the path is free, the same store opens the database.
    rmSync(path, { recursive: true });
    await (await Session.create({ store, id: 'a' })).close();
    expect(await store.exists('a')).toBe(true);
    await store.close();
  });

  it('reports a database in a folder that does not exist as STORE_UNAVAILABLE', async () => {
    const path = join(dir, 'missing', 'sessions.db');
    await expect(createSqliteStore({ path }).list()).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      path,
      message: `Cannot open the session database: the SQLite database ${path} is in a folder that does not exist; create the folder first, or pass another path`,
    });
  });

  it('uses WAL journaling and keeps sessions across store instances', async () => {
    const path = join(dir, 'sessions.db');
    const store = createSqliteStore({ path });
    const session = await Session.create({ store, id: 'kept', title: 'sqlite' });
    session.append(
      'user/message',
      { content: 'stored', source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
    session.checkpoint();
    await session.flush();
    await session.close();
    await store.close();
    const raw = new Database(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
    const again = createSqliteStore({ path });
    const reopened = await Session.open({ store: again, id: 'kept' });
    expect(reopened.deriveMessages().messages).toEqual([
      { role: 'user', content: 'stored', source: 'user' },
    ]);
    expect((await again.list())[0]).toMatchObject({ id: 'kept', header: { title: 'sqlite' } });
    await reopened.close();
    await again.close();
  });

  it('takes over a lock left by a dead or reused pid and refuses a live one', async () => {
    const path = join(dir, 'sessions.db');
    const store = createSqliteStore({ path });
    await (await Session.create({ store, id: 'stale' })).close();
    const raw = new Database(path);
    raw.prepare('UPDATE spine_sessions SET lock_pid = ? WHERE id = ?').run(999_999_999, 'stale');
    const session = await Session.open({ store, id: 'stale' });
    await session.close();
    // A live pid with another start time is an unrelated process that reused the pid.
    raw
      .prepare('UPDATE spine_sessions SET lock_pid = ?, lock_start = ? WHERE id = ?')
      .run(process.ppid, '1', 'stale');
    await (await Session.open({ store, id: 'stale' })).close();
    raw
      .prepare('UPDATE spine_sessions SET lock_pid = ?, lock_start = NULL WHERE id = ?')
      .run(process.ppid, 'stale');
    await expect(Session.open({ store, id: 'stale' })).rejects.toThrow(/locked by pid/);
    raw.close();
    await store.close();
  });

  it('names the database, session and seq of a corrupt row', async () => {
    const path = join(dir, 'sessions.db');
    const store = createSqliteStore({ path });
    const session = await Session.create({ store, id: 'bad' });
    session.append('turn/start', {}, { turn: 1 });
    await session.close();
    const raw = new Database(path);
    raw
      .prepare('UPDATE spine_events SET data = ? WHERE session_id = ? AND seq = 2')
      .run('{oops', 'bad');
    raw.close();
    const error = await Session.open({ store, id: 'bad' }).catch((caught: unknown) => caught);
    expect(SpineError.isInstance(error) && error.code).toBe('SESSION_CORRUPT');
    expect((error as Error).message).toContain('(session bad):2');
    const retry = await Session.open({ store, id: 'bad' }).catch((caught: unknown) => caught);
    expect(SpineError.isInstance(retry) && retry.code).toBe('SESSION_CORRUPT');
    await store.close();
  });
});
