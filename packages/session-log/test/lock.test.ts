import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpineError } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonlStore, Session } from '../src/index.js';
import { bundleChild, startChild } from './child.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-lock-'));
let bundle = '';
beforeAll(async () => {
  bundle = await bundleChild(join(dir, 'child.mjs'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('single writer across processes', () => {
  it('gives the second writer a clear lock error naming the holder, and frees the lock when it dies', async () => {
    const holder = startChild(bundle, dir, 'shared', 'hold');
    await holder.waitFor((line) => line.startsWith('ready'));
    const store = createJsonlStore({ dir });
    try {
      const error = await Session.open({ store, id: 'shared' }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(SpineError.isInstance(error) && error.code).toBe('SESSION_LOCKED');
      expect((error as Error).message).toContain(`pid ${holder.child.pid}`);
      expect((error as Error).message).toContain('shared.jsonl.lock');
      const reader = await Session.open({ store, id: 'shared', readOnly: true });
      expect(reader.lastSeq).toBe(1);
      await reader.close();
    } finally {
      holder.child.kill('SIGKILL');
    }
    await holder.exited;
    const writer = await Session.open({ store, id: 'shared' });
    writer.append('turn/start', {}, { turn: 1 });
    await writer.close();
  });
});
