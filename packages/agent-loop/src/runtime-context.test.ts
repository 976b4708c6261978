import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserMessageBody } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeContextProjection } from './runtime-context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('RuntimeContextProjection', () => {
  it('writes only when the snapshot changed, and only the changed keys after the first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-rc-'));
    dirs.push(dir);
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.create({ store });
    const projection = new RuntimeContextProjection(session);
    const first = projection.project({ cwd: '/w', date: '2026-11-30' }, { turn: 1, step: 1 });
    expect((first!.body as UserMessageBody).content).toBe(
      '<runtime-context>\ncwd: /w\ndate: 2026-11-30\n</runtime-context>',
    );
    expect(
      projection.project({ cwd: '/w', date: '2026-11-30' }, { turn: 1, step: 2 }),
    ).toBeUndefined();
    const changed = projection.project({ cwd: '/w', date: '2026-12-01' }, { turn: 1, step: 3 });
    expect((changed!.body as UserMessageBody).content).toBe(
      '<runtime-context changed="date">\ndate: 2026-12-01\n</runtime-context>',
    );
    const removed = projection.project({ cwd: '/w' }, { turn: 1, step: 4 });
    expect((removed!.body as UserMessageBody).content).toContain('date: (no longer set)');
    await session.close();

    const reopened = await Session.open({ store, id: session.id });
    const restored = new RuntimeContextProjection(reopened);
    expect(restored.current).toEqual({ cwd: '/w' });
    const before = reopened.lastSeq;
    expect(restored.project({ cwd: '/w' }, { turn: 2, step: 1 })).toBeUndefined();
    expect(reopened.lastSeq).toBe(before);
    await reopened.close();
  });

  it('writes the full snapshot again when compaction removed the last context message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-rc-'));
    dirs.push(dir);
    const session = await Session.create({ store: createJsonlStore({ dir, fsync: 'never' }) });
    const projection = new RuntimeContextProjection(session);
    const written = projection.project({ cwd: '/w' }, { turn: 1, step: 1 });
    const user = session.append(
      'user/message',
      { content: 'hi', source: 'user' },
      { turn: 1, step: 1, surfaceOp: { op: 'append' } },
    );
    session.append(
      'user/message',
      { content: 'checkpoint', source: 'compact-checkpoint' },
      { turn: 1, step: 2, surfaceOp: { op: 'replace', start: written?.seq ?? 0, end: user.seq } },
    );
    const again = projection.project({ cwd: '/w' }, { turn: 1, step: 3 });
    expect((again!.body as UserMessageBody).content).toBe(
      '<runtime-context>\ncwd: /w\n</runtime-context>',
    );
    await session.close();
  });

  it('settles a frozen snapshot handed out again, until compaction removes its message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-rc-'));
    dirs.push(dir);
    const session = await Session.create({ store: createJsonlStore({ dir, fsync: 'never' }) });
    const projection = new RuntimeContextProjection(session);
    const contexts = Object.freeze({ cwd: '/w' });
    const written = projection.project(contexts, { turn: 1, step: 1 });
    expect(written).toBeDefined();
    expect(projection.project(contexts, { turn: 1, step: 2 })).toBeUndefined();
    const user = session.append(
      'user/message',
      { content: 'hi', source: 'user' },
      { turn: 1, step: 2, surfaceOp: { op: 'append' } },
    );
    session.append(
      'user/message',
      { content: 'checkpoint', source: 'compact-checkpoint' },
      { turn: 1, step: 3, surfaceOp: { op: 'replace', start: written?.seq ?? 0, end: user.seq } },
    );
    const again = projection.project(contexts, { turn: 1, step: 4 });
    expect((again?.body as UserMessageBody | undefined)?.content).toBe(
      '<runtime-context>\ncwd: /w\n</runtime-context>',
    );
    expect(projection.project(Object.freeze({ cwd: '/x' }), { turn: 1, step: 5 })).toBeDefined();
    expect(projection.project(contexts, { turn: 1, step: 6 })).toBeDefined();
    await session.close();
  });
});
