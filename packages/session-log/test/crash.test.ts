import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { UserMessageBody } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonlStore, Session } from '../src/index.js';
import { bundleChild, startChild } from './child.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-crash-'));
let bundle = '';
beforeAll(async () => {
  bundle = await bundleChild(join(dir, 'child.mjs'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The content crash-child.ts writes for `seq`, so a partial event cannot pass as whole. */
function expectedLength(seq: number): number {
  return seq % 10 === 0 ? 64_000 + ((seq * 7919) % 100_000) : 100 + ((seq * 131) % 2000);
}

describe('crash safety of the JSONL store (fsync always)', () => {
  it('finds every acknowledged event after 50 SIGKILLs at random moments, gapless and whole', async () => {
    const id = 'crash-session';
    const store = createJsonlStore({ dir });
    let random = 12345;
    let acknowledged = 0;
    for (let round = 0; round < 50; round++) {
      const running = startChild(bundle, dir, id, 'loop');
      await running.waitFor((line) => line.startsWith('ready'));
      random = (random * 1103515245 + 12345) % 2 ** 31;
      await delay(5 + (random % 120));
      running.child.kill('SIGKILL');
      await running.exited;
      const acked = running.lines.filter((line) => /^\d+$/.test(line)).map(Number);
      if (acked.length > 0) acknowledged = Math.max(acknowledged, acked[acked.length - 1]!);

      const session = await Session.open({ store, id, readOnly: true });
      const events = session.events();
      expect(session.lastSeq).toBeGreaterThanOrEqual(acknowledged);
      events.forEach((event, index) => {
        expect(event.seq).toBe(index + 1);
        if (event.type === 'user/message') {
          const body = event.body as UserMessageBody;
          expect(body.content.startsWith(`seq ${event.seq} `)).toBe(true);
          expect(body.content.length).toBe(expectedLength(event.seq));
        }
      });
      for (const seq of acked) expect(session.get(seq)?.type).toBe('user/message');
      await session.close();
    }
    const recovered = (await Session.open({ store, id, readOnly: true }))
      .events()
      .filter((event) => event.type === 'session/recovered');
    console.log(
      `crash test: ${acknowledged} events acknowledged, ${recovered.length} torn writes repaired`,
    );
    // The final writable open repairs whatever the last kill left and releases the stale lock.
    const session = await Session.open({ store, id });
    expect(session.lastSeq).toBeGreaterThanOrEqual(acknowledged);
    await session.close();
  }, 170_000);
});
