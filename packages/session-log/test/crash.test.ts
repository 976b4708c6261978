import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type {
  SessionRecoveredBody,
  ToolResultBody,
  ToolStartedBody,
  UserMessageBody,
} from '@spine/protocol';
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

describe('crash safety of the JSONL store under SIGKILL', () => {
  it('with fsync always, finds every acknowledged event after 50 SIGKILLs at random moments, gapless and whole, and answers every interrupted call', async () => {
    const id = 'crash-session';
    const store = createJsonlStore({ dir });
    let random = 12345;
    let acknowledged = 0;
    const outcomes = { unknown: 0, 'not-started': 0 };
    for (let round = 0; round < 50; round++) {
      const running = startChild(bundle, dir, id, 'loop');
      await running.waitFor((line) => line.startsWith('ready'));
      random = (random * 1103515245 + 12345) % 2 ** 31;
      await delay(5 + (random % 120));
      running.child.kill('SIGKILL');
      await running.exited;
      const acked = running.lines
        .filter((line) => /^\d+ /.test(line))
        .map((line) => {
          const [seq, type] = line.split(' ');
          return { seq: Number(seq), type: type! };
        });
      if (acked.length > 0) acknowledged = Math.max(acknowledged, acked[acked.length - 1]!.seq);

      // A writable open, as a resuming agent would do: it cuts a torn tail and answers open calls.
      const session = await Session.open({ store, id });
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
      for (const { seq, type } of acked) expect(session.get(seq)?.type).toBe(type);
      const started = new Set(
        events
          .filter((event) => event.type === 'tool/started')
          .map((event) => (event.body as ToolStartedBody).toolCallId),
      );
      for (const event of events) {
        const body = event.body as ToolResultBody;
        if (event.type !== 'tool/result' || body.outcome === undefined) continue;
        expect(body.outcome).toBe(started.has(body.toolCallId) ? 'unknown' : 'not-started');
        if (acked.length > 0 && event.seq > acked[acked.length - 1]!.seq)
          outcomes[body.outcome as 'unknown' | 'not-started']++;
      }
      const messages = session.deriveMessages().messages;
      const answered = new Set(
        messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])),
      );
      for (const message of messages) {
        if (message.role !== 'assistant') continue;
        for (const part of message.content)
          if (part.type === 'tool-call') expect(answered.has(part.id)).toBe(true);
      }
      expect(events.some((event) => event.type === 'turn/end')).toBe(false);
      await session.close();
    }
    const recovered = (await Session.open({ store, id, readOnly: true }))
      .events()
      .filter((event) => event.type === 'session/recovered');
    console.log(
      `crash test: ${acknowledged} events acknowledged; ${recovered.length} recoveries answered ` +
        `${outcomes.unknown} started and ${outcomes['not-started']} unstarted calls`,
    );
  }, 170_000);

  it('cuts real torn writes left by SIGKILL inside 4 MB write-through appends, keeping every acknowledged event', async () => {
    const store = createJsonlStore({ dir });
    let random = 777;
    let torn = 0;
    for (let round = 0; round < 20; round++) {
      const id = `big-${round}`;
      const running = startChild(bundle, dir, id, 'big');
      await running.waitFor((line) => line.startsWith('ready'));
      random = (random * 1103515245 + 12345) % 2 ** 31;
      await delay(20 + (random % 80));
      running.child.kill('SIGKILL');
      await running.exited;
      const acked = running.lines
        .filter((line) => /^\d+ /.test(line))
        .map((line) => Number(line.split(' ')[0]));
      const session = await Session.open({ store, id });
      const recovered = session.events().find((event) => event.type === 'session/recovered');
      if ((recovered?.body as SessionRecoveredBody | undefined)?.truncatedBytes) torn++;
      for (const seq of acked) expect(session.get(seq)?.type).toBe('user/message');
      for (const event of session.events()) {
        if (event.type !== 'user/message') continue;
        expect((event.body as UserMessageBody).content.length).toBe(
          event.seq % 2 === 0 ? 4 * 1024 * 1024 : 1024,
        );
      }
      await session.close();
      rmSync(join(dir, `${id}.jsonl`), { force: true });
    }
    console.log(
      `crash test (4 MB appends): ${torn} of 20 kills left a torn last line, cut on open`,
    );
  }, 120_000);
});
