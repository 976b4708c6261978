import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { SessionEvent, UserMessageBody } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonlStore, Session } from '../src/index.js';
import { bundleChild, startChild } from './child.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-crash-snapshot-'));
let bundle = '';
beforeAll(async () => {
  bundle = await bundleChild(join(dir, 'child.mjs'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snapshots under SIGKILL', () => {
  it('after 50 SIGKILLs at random moments while snapshots are written, a lazy open holds every acknowledged event and agrees with a full replay', async () => {
    const id = 'snapshot-crash';
    const store = createJsonlStore({ dir });
    let random = 424242;
    let acknowledged = 0;
    let snapshots = 0;
    for (let round = 0; round < 50; round++) {
      const running = startChild(bundle, dir, id, 'snapshot');
      // Kill after the first snapshot of the round, at a random moment among later ones.
      await running.waitFor((line) => line.startsWith('snapshot '));
      random = (random * 1103515245 + 12345) % 2 ** 31;
      await delay(random % 100);
      running.child.kill('SIGKILL');
      await running.exited;
      for (const line of running.lines) {
        if (/^\d+ /.test(line)) acknowledged = Math.max(acknowledged, Number(line.split(' ')[0]));
        if (line.startsWith('snapshot ')) snapshots++;
      }

      // The way a resuming agent opens: lazily, writable (repairs the tail and open calls).
      const lazy = await Session.open({ store, id, history: 'lazy' });
      expect(lazy.lastSeq).toBeGreaterThanOrEqual(acknowledged);
      const all: SessionEvent[] = [];
      for await (const event of lazy.readEvents({ fromSeq: 1 })) all.push(event);
      all.forEach((event, index) => {
        expect(event.seq).toBe(index + 1);
        if (event.type === 'user/message' && (event.body as UserMessageBody).source === 'user') {
          expect((event.body as UserMessageBody).content.startsWith(`seq ${event.seq} `)).toBe(
            true,
          );
        }
      });
      const surface = lazy.surface();
      const messages = lazy.deriveMessages().messages;
      await lazy.close();
      const full = await Session.open({ store, id, readOnly: true });
      expect(full.surface()).toEqual(surface);
      expect(full.deriveMessages().messages).toEqual(messages);
      expect(full.events()).toEqual(all);
      await full.close();
    }
    // Every round wrote at least one snapshot before its kill.
    expect(snapshots).toBeGreaterThanOrEqual(50);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp')).length).toBeLessThanOrEqual(1);
  }, 300_000);
});
