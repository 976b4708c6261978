import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlStore, Session } from '@spine/session-log';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { wholeHistory, withWholeHistory } from './history.js';

const dir = mkdtempSync(join(tmpdir(), 'rewind-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the whole log of a lazily opened session, for rewinding', () => {
  it('reads every event, answers events() and get() for any range, and sees appends', async () => {
    const store = createJsonlStore({ dir, fsync: 'never' });
    const writer = await Session.create({ store, cwd: '/work' });
    for (let turn = 1; turn <= 60; turn++) {
      writer.append('turn/start', {}, { turn });
      writer.append(
        'user/message',
        { content: `turn ${turn}`, source: 'user' },
        { turn, surfaceOp: { op: 'append' } },
      );
      writer.append('turn/end', { reason: 'completed' }, { turn });
      if (turn === 50) await writer.snapshot();
    }
    await writer.close();
    const full = await Session.open({ store, id: writer.id, readOnly: true });
    const lazy = await Session.open({ store, id: writer.id, history: 'lazy' });
    try {
      expect(lazy.events().length).toBeLessThan(full.events().length);
      expect(await wholeHistory(lazy)).toEqual(full.events());
      const view = await withWholeHistory(lazy);
      const last = full.lastSeq;
      fc.assert(
        fc.property(
          fc.integer({ min: -2, max: last + 3 }),
          fc.integer({ min: -2, max: last + 3 }),
          (from, to) => {
            expect(view.events({ from, to })).toEqual(full.events({ from, to }));
            expect(view.get(from)).toEqual(full.get(from));
          },
        ),
      );
      // Appended through the view: in the session, and in what the view answers after.
      const appended = view.append('turn/start', {}, { turn: 61 });
      expect(lazy.lastSeq).toBe(last + 1);
      expect(view.events().at(-1)).toEqual(appended);
      expect(view.events()).toHaveLength(last + 1);
      // A session that holds every event is its own whole history.
      expect(await withWholeHistory(full)).toBe(full);
    } finally {
      await full.close();
      await lazy.close();
    }
  });
});
